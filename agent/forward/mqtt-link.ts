import mqtt, { type MqttClient } from "mqtt";
import type { Logger } from "../../src/log/logger.ts";
import { Backoff } from "./backoff.ts";

export interface LinkMessage {
  topic: string;
  payload: Uint8Array;
}

export interface LinkOptions {
  url: string;
  clientId: string;
  username?: string;
  password?: string;
  /** Published by the broker if the connection dies (retained). */
  will: LinkMessage;
  /** Published (retained) after every connect, before the link is ready. */
  online: () => LinkMessage;
  subscriptions: string[];
  reconnectMinMs: number;
  reconnectMaxMs: number;
  log: Logger;
}

export interface LinkHandlers {
  ready(): void;
  down(): void;
  message(topic: string, payload: Uint8Array): void;
}

/**
 * The agent's MQTT connection. Reconnects with backoff, and is "ready" only once its
 * subscriptions are granted and its online status is out, so no ack can be missed.
 */
export class MqttLink {
  private client: MqttClient | undefined;
  private readonly backoff: Backoff;
  private retry: ReturnType<typeof setTimeout> | undefined;
  private lastError = "";
  private stopping = false;
  ready = false;

  constructor(
    private readonly opts: LinkOptions,
    private readonly on: LinkHandlers,
  ) {
    this.backoff = new Backoff(opts.reconnectMinMs, opts.reconnectMaxMs);
  }

  start(): void {
    const o = this.opts;
    const client = mqtt.connect(o.url, {
      clientId: o.clientId,
      protocolVersion: 4,
      clean: true,
      // Reconnection is ours (backoff with jitter), not mqtt.js's fixed period.
      reconnectPeriod: 0,
      connectTimeout: 10_000,
      keepalive: 30,
      username: o.username,
      password: o.password,
      will: { topic: o.will.topic, payload: Buffer.from(o.will.payload), qos: 1, retain: true },
    });
    this.client = client;
    client.on("connect", () => void this.onConnect(client));
    client.on("message", (topic, payload) => this.on.message(topic, payload));
    client.on("error", (e) => this.noteError(e.message));
    client.on("close", () => this.onClose());
  }

  private async onConnect(client: MqttClient): Promise<void> {
    this.backoff.reset();
    this.lastError = "";
    try {
      // mqtt.js rejects when the broker refuses a subscription (granted 128).
      await client.subscribeAsync(this.opts.subscriptions, { qos: 1 });
      const online = this.opts.online();
      await client.publishAsync(online.topic, Buffer.from(online.payload), { qos: 1, retain: true });
    } catch (e) {
      // Without the ack subscription nothing could ever leave the buffer: drop the
      // connection and retry with backoff (the log says why, e.g. wrong tenant credentials).
      this.noteError(`setting up the session failed: ${(e as Error).message}`);
      client.end(true);
      return;
    }
    if (!client.connected) return;
    this.ready = true;
    this.opts.log.info("connected to broker", { url: this.opts.url });
    this.on.ready();
  }

  private noteError(msg: string): void {
    // Log each distinct failure once; a broker that stays down must not flood the log.
    if (msg !== this.lastError) this.opts.log.warn("broker connection problem", { err: msg });
    this.lastError = msg;
  }

  private onClose(): void {
    if (this.ready) {
      this.ready = false;
      this.opts.log.warn("lost broker connection; buffering", { url: this.opts.url });
      this.on.down();
    }
    if (this.stopping || this.retry) return;
    const delay = this.backoff.next();
    this.opts.log.debug("reconnecting", { inMs: delay });
    this.retry = setTimeout(() => {
      this.retry = undefined;
      if (!this.stopping) this.client?.reconnect();
    }, delay);
  }

  /** Publishes at QoS 1; resolves on the broker's PUBACK (which is not durability). */
  publish(topic: string, payload: Uint8Array, retain = false): Promise<void> {
    const c = this.client;
    if (!c || !this.ready) return Promise.reject(new Error("not connected"));
    return c.publishAsync(topic, Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength), { qos: 1, retain }).then(() => undefined);
  }

  /** Publishes `last` (the offline status) when connected, then disconnects cleanly. */
  async stop(last?: LinkMessage): Promise<void> {
    this.stopping = true;
    if (this.retry) clearTimeout(this.retry);
    const c = this.client;
    if (!c) return;
    if (last && this.ready) {
      const sent = this.publish(last.topic, last.payload, true).catch(() => undefined);
      await Promise.race([sent, Bun.sleep(1000)]);
    }
    this.ready = false;
    await Promise.race([c.endAsync(), Bun.sleep(1000)]).catch(() => undefined);
    c.end(true);
  }
}
