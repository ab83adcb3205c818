import type { Socket } from "bun";
import {
  type ConnectOptions,
  encodeConnect,
  encodeDisconnect,
  encodePingreq,
  encodePuback,
  encodePublishParts,
  encodeSubscribe,
  type Incoming,
  MqttProtocolError,
  PacketReader,
} from "./packets.ts";
import type { BrokerAddress } from "../../../src/protocol/broker-url.ts";
import { releaseBuffer } from "../../../src/runtime/release-buffer.ts";

/** PEM material for mqtts://: the CA to verify the broker with, and a client certificate. */
export interface TlsClientFiles {
  ca?: string;
  cert?: string;
  key?: string;
}

const CONNACK_REASONS: Record<number, string> = {
  1: "unacceptable protocol version",
  2: "identifier rejected",
  3: "server unavailable",
  4: "bad user name or password",
  5: "not authorized",
};

/** A TLS alert from the broker says what it refused; other socket errors are passed on as they are. */
function describeSocketError(e: Error): string {
  if (/ALERT_(CERTIFICATE_REQUIRED|BAD_CERTIFICATE|UNKNOWN_CA|CERTIFICATE_UNKNOWN|CERTIFICATE_EXPIRED|CERTIFICATE_REVOKED)/.test(e.message)) {
    return `TLS: the broker refused this agent's client certificate (--cert-file): ${e.message}`;
  }
  return /SSL routines|TLS/.test(e.message) ? `TLS error: ${e.message}` : e.message;
}

export interface ConnectionEvents {
  message(topic: string, payload: Uint8Array): void;
  /** The connection is gone (after `closed()` was requested or not); called once. */
  closed(reason: string): void;
}

/**
 * One MQTT 3.1.1 session over one TCP (or TLS) connection: no reconnection, no offline
 * queue (the agent's buffer is the queue). Keeps the connection alive with pings and
 * declares it dead when the broker stays silent for 1.5 keep-alive periods.
 */
export class MqttConnection {
  private socket: Socket<undefined> | undefined;
  private readonly reader = new PacketReader();
  private readonly acks = new Map<number, { resolve: (v: number[]) => void; reject: (e: Error) => void }>();
  private nextId = 1;
  private outbox: Uint8Array[] = [];
  /** Entries of the outbox that are a caller's bytes (a payload): never freed here. */
  private readonly lent = new WeakSet<Uint8Array>();
  private lastHeard = Date.now();
  private keepalive: ReturnType<typeof setInterval> | undefined;
  private connack: { resolve: () => void; reject: (e: Error) => void } | undefined;
  private done = false;
  /** The handshake completed: only then does the owner hear of the close. */
  private established = false;

  private constructor(
    private readonly options: ConnectOptions,
    private readonly events: ConnectionEvents,
  ) {}

  /** Connects and completes the MQTT handshake; rejects with the broker's reason or a timeout. */
  static async open(address: BrokerAddress, options: ConnectOptions, events: ConnectionEvents, timeoutMs: number, tls: TlsClientFiles = {}): Promise<MqttConnection> {
    const c = new MqttConnection(options, events);
    await c.start(address, timeoutMs, tls);
    return c;
  }

  private async start(address: BrokerAddress, timeoutMs: number, tls: TlsClientFiles): Promise<void> {
    const handshake = new Promise<void>((resolve, reject) => {
      this.connack = { resolve, reject };
    });
    // Failing before the handshake is awaited (connect refused) must not be an unhandled rejection.
    handshake.catch(() => {});
    const timer = setTimeout(() => this.fail("connection timed out"), timeoutMs);
    try {
      this.socket = await Bun.connect({
        hostname: address.host,
        port: address.port,
        tls: address.tls ? { serverName: address.host, ...tls } : false,
        socket: {
          // A refused certificate must read as such, not as "connection closed".
          handshake: (_s, ok, err) => {
            const code = (err as (Error & { code?: string }) | null)?.code;
            if (!ok || err) this.fail(`TLS certificate check failed: ${err?.message ?? "handshake failed"}${code ? ` (${code})` : ""}`);
          },
          data: (_s, data) => this.receive(data),
          drain: () => this.flush(),
          close: () => this.fail("connection closed"),
          error: (_s, e) => this.fail(describeSocketError(e)),
        },
      });
      this.send(encodeConnect(this.options));
      await handshake;
    } catch (e) {
      this.fail((e as Error).message);
      throw e;
    } finally {
      clearTimeout(timer);
    }
    this.established = true;
    const period = this.options.keepaliveSeconds * 1000;
    if (period > 0) {
      this.keepalive = setInterval(() => {
        if (Date.now() - this.lastHeard > period * 1.5) return this.fail("broker stopped answering (keep-alive)");
        this.send(encodePingreq());
      }, period);
    }
  }

  get open(): boolean {
    return !this.done;
  }

  /** QoS 1 resolves on the broker's PUBACK; QoS 0 once written. */
  publish(topic: string, payload: Uint8Array, qos: 0 | 1, retain: boolean): Promise<void> {
    if (qos === 0) {
      this.send(encodePublishParts({ topic, payload, qos, retain }));
      return Promise.resolve();
    }
    return this.request((id) => encodePublishParts({ topic, payload, qos, retain, id })).then(() => undefined);
  }

  /** Subscribes at QoS 1; rejects when the broker refuses a filter (granted 0x80). */
  async subscribe(topics: string[]): Promise<void> {
    const granted = await this.request((id) => encodeSubscribe(id, topics, 1));
    const refused = topics.filter((_, i) => (granted[i] ?? 0x80) === 0x80);
    if (refused.length) throw new Error(`subscription refused: ${refused.join(", ")}`);
  }

  /** Sends DISCONNECT (so the broker drops the will) and closes once it is written. */
  end(): void {
    if (this.done) return;
    this.send(encodeDisconnect());
    this.fail("closed by the client", true);
  }

  private request(build: (id: number) => Uint8Array | [Uint8Array, Uint8Array]): Promise<number[]> {
    if (this.done) return Promise.reject(new Error("not connected"));
    const id = this.allocateId();
    return new Promise((resolve, reject) => {
      this.acks.set(id, { resolve, reject });
      this.send(build(id));
    });
  }

  private allocateId(): number {
    for (let i = 0; i < 65_535; i++) {
      const id = this.nextId;
      this.nextId = id === 65_535 ? 1 : id + 1;
      if (!this.acks.has(id)) return id;
    }
    throw new Error("too many unacknowledged packets");
  }

  /**
   * Queues a packet and writes what the socket takes. A packet in two parts (encodePublishParts)
   * has its payload written straight from the caller's bytes; what the socket did not take of
   * it is copied before this returns (the caller may free its bytes then).
   */
  private send(bytes: Uint8Array | [Uint8Array, Uint8Array]): void {
    if (this.done || !this.socket) return;
    if (bytes instanceof Uint8Array) {
      this.outbox.push(bytes);
      this.flush();
      return;
    }
    const [head, payload] = bytes;
    this.outbox.push(head, payload);
    this.lent.add(payload);
    this.flush();
    // A copy (a Buffer's slice() would be a view of the caller's bytes).
    for (let i = 0; i < this.outbox.length; i++) if (this.lent.has(this.outbox[i]!)) this.outbox[i] = new Uint8Array(this.outbox[i]!);
  }

  /** Writes what the socket takes; the rest waits for `drain`. */
  private flush(): void {
    const s = this.socket;
    while (s && this.outbox.length > 0) {
      const head = this.outbox[0]!;
      const written = s.write(head);
      if (written < 0) {
        this.fail("write failed");
        return;
      }
      if (written < head.length) {
        const rest = head.subarray(written);
        if (this.lent.has(head)) this.lent.add(rest);
        this.outbox[0] = rest;
        return;
      }
      this.outbox.shift();
      // The kernel has the bytes (the socket keeps no reference): a large packet is freed now;
      // a caller's payload is the caller's to free.
      if (!this.lent.has(head)) releaseBuffer(head);
    }
  }

  private receive(data: Uint8Array): void {
    this.lastHeard = Date.now();
    let packets: Incoming[];
    try {
      packets = this.reader.push(data);
    } catch (e) {
      this.fail(e instanceof MqttProtocolError ? `protocol error: ${e.message}` : String(e));
      return;
    }
    for (const p of packets) this.handle(p);
  }

  private handle(p: Incoming): void {
    switch (p.type) {
      case "connack":
        if (p.returnCode === 0) this.connack?.resolve();
        else this.fail(`connection refused: ${CONNACK_REASONS[p.returnCode] ?? `code ${p.returnCode}`}`);
        return;
      case "puback":
      case "suback": {
        const waiter = this.acks.get(p.id);
        this.acks.delete(p.id);
        waiter?.resolve(p.type === "suback" ? p.granted : []);
        return;
      }
      case "publish":
        if (p.qos === 1 && p.id !== undefined) this.send(encodePuback(p.id));
        this.events.message(p.topic, p.payload);
        return;
      case "pingresp":
        return;
    }
  }

  private fail(reason: string, graceful = false): void {
    if (this.done) return;
    this.done = true;
    clearInterval(this.keepalive);
    const err = new Error(reason);
    this.connack?.reject(err);
    for (const w of this.acks.values()) w.reject(err);
    this.acks.clear();
    this.outbox = [];
    if (graceful) this.socket?.end();
    else this.socket?.terminate();
    if (this.established) this.events.closed(reason);
  }
}
