/** How the collector meets its agents: the embedded broker, or a client of an external one. */
export interface IngestTransport {
  /** Starts delivering messages matching the filters. Delivery does not wait for handling. */
  start(filters: string[], deliver: (topic: string, payload: Uint8Array) => void): Promise<void>;
  /** Publishes at QoS 1; a retained message is kept by the broker for later subscribers. */
  publish(topic: string, payload: Uint8Array, retain?: boolean): Promise<void>;
  /** Connected agents, when the transport can tell. */
  connectedClients(): number | undefined;
  close(): Promise<void>;
  readonly description: string;
}
