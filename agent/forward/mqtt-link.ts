import type { Logger } from "../../src/log/logger.ts";
import { Backoff } from "./backoff.ts";
import { parseBrokerUrl } from "../../src/protocol/broker-url.ts";
import { MqttConnection, type TlsClientFiles } from "./mqtt/connection.ts";

export interface LinkMessage {
  topic: string;
  payload: Uint8Array;
}

export interface LinkOptions {
  url: string;
  clientId: string;
  /**
   * Used instead once the broker refuses `clientId` as an identifier (an embedded broker of a
   * collector older than the agent accepts only the id without an instance).
   */
  fallbackClientId?: string;
  username?: string;
  password?: string;
  /** TLS material for mqtts://, read at every connection attempt (so renewed files are used). */
  tls?: () => TlsClientFiles;
  /** Published by the broker if the connection dies (retained). */
  will: LinkMessage;
  /** Published (retained) after every connect, before the link is ready. */
  online: () => LinkMessage;
  subscriptions: string[];
  /** Subscribed after the required ones; a refusal is logged and the link works without them. */
  optionalSubscriptions?: string[];
  reconnectMinMs: number;
  reconnectMaxMs: number;
  /** A failure that persists is logged again this often (default 5 minutes). */
  repeatProblemMs?: number;
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
  private conn: MqttConnection | undefined;
  private readonly backoff: Backoff;
  private retry: ReturnType<typeof setTimeout> | undefined;
  private lastError = "";
  private lastErrorLogged = 0;
  private failingSince: number | undefined;
  private failures = 0;
  private stopping = false;
  private clientId: string;
  ready = false;

  constructor(
    private opts: LinkOptions,
    private readonly on: LinkHandlers,
  ) {
    this.backoff = new Backoff(opts.reconnectMinMs, opts.reconnectMaxMs);
    this.clientId = opts.clientId;
  }

  start(): void {
    void this.attempt();
  }

  private async attempt(): Promise<void> {
    const o = this.opts;
    let conn: MqttConnection;
    try {
      const tls = o.tls?.() ?? {};
      conn = await MqttConnection.open(
        parseBrokerUrl(o.url),
        {
          clientId: this.clientId,
          clean: true,
          keepaliveSeconds: 30,
          username: o.username,
          password: o.password,
          will: { topic: o.will.topic, payload: o.will.payload, qos: 1, retain: true },
        },
        { message: (topic, payload) => this.on.message(topic, payload), closed: (reason) => this.onClose(reason) },
        10_000,
        tls,
      );
    } catch (e) {
      const fallback = o.fallbackClientId;
      if (fallback !== undefined && this.clientId !== fallback && /identifier rejected/i.test((e as Error).message)) {
        o.log.warn("the broker refused this agent's client id; using the feed's plain one (a collector older than this agent: two agents of one feed would take each other's connection)", { refused: this.clientId, using: fallback });
        this.clientId = fallback;
        return void this.attempt();
      }
      this.noteError((e as Error).message);
      return this.scheduleRetry();
    }
    if (this.stopping) return conn.end();
    this.conn = conn;
    this.backoff.reset();
    this.lastError = "";
    this.failingSince = undefined;
    this.failures = 0;
    try {
      await conn.subscribe(o.subscriptions);
      await this.subscribeOptional(conn);
      const online = o.online();
      await conn.publish(online.topic, online.payload, 1, true);
    } catch (e) {
      // Without the ack subscription nothing could ever leave the buffer: drop the
      // connection and retry with backoff (the log says why, e.g. wrong tenant credentials).
      this.noteError(`setting up the session failed: ${(e as Error).message}`);
      conn.end();
      return;
    }
    if (!conn.open) return;
    this.ready = true;
    o.log.info("connected to broker", { url: o.url });
    this.on.ready();
  }

  private async subscribeOptional(conn: MqttConnection): Promise<void> {
    for (const topic of this.opts.optionalSubscriptions ?? []) {
      try {
        await conn.subscribe([topic]);
      } catch (e) {
        // E.g. a broker ACL written before the topic existed: the rest still works.
        this.noteError(`optional subscription failed (${topic}): ${(e as Error).message}`);
        if (!conn.open) throw e;
      }
    }
  }

  private noteError(msg: string): void {
    // Each distinct failure at once, the same one again only every few minutes: a broker that
    // stays down must be visible without flooding the log.
    const t = Date.now();
    this.failingSince ??= t;
    this.failures++;
    if (msg !== this.lastError) {
      this.opts.log.warn("cannot connect to the broker", { url: this.opts.url, reason: msg });
      this.lastErrorLogged = t;
    } else if (t - this.lastErrorLogged >= (this.opts.repeatProblemMs ?? 300_000)) {
      this.opts.log.warn("still cannot connect to the broker", {
        url: this.opts.url,
        reason: msg,
        failingForSeconds: Math.round((t - this.failingSince) / 1000),
        attempts: this.failures,
      });
      this.lastErrorLogged = t;
    }
    this.lastError = msg;
  }

  /** New credentials (SIGHUP): used from the next connection, which starts now. */
  setCredentials(username: string | undefined, password: string | undefined): void {
    this.opts = { ...this.opts, username, password };
    this.lastError = "";
    const c = this.conn;
    if (!c) return;
    this.opts.log.info("reconnecting with the new credentials", { url: this.opts.url });
    c.end();
  }

  private onClose(reason: string): void {
    this.conn = undefined;
    if (this.ready) {
      this.ready = false;
      this.opts.log.warn("lost broker connection; buffering", { url: this.opts.url, reason });
      this.on.down();
    } else if (!this.stopping) this.noteError(reason);
    this.scheduleRetry();
  }

  private scheduleRetry(): void {
    if (this.stopping || this.retry) return;
    const delay = this.backoff.next();
    this.opts.log.debug("reconnecting", { inMs: delay });
    this.retry = setTimeout(() => {
      this.retry = undefined;
      if (!this.stopping) void this.attempt();
    }, delay);
  }

  /** Publishes at QoS 1; resolves on the broker's PUBACK (which is not durability). */
  publish(topic: string, payload: Uint8Array, retain = false): Promise<void> {
    const c = this.conn;
    if (!c || !this.ready) return Promise.reject(new Error("not connected"));
    return c.publish(topic, payload, 1, retain);
  }

  /** Publishes `last` (the offline status) when connected, then disconnects cleanly. */
  async stop(last?: LinkMessage): Promise<void> {
    this.stopping = true;
    if (this.retry) clearTimeout(this.retry);
    const c = this.conn;
    if (!c) return;
    if (last && this.ready) {
      const sent = this.publish(last.topic, last.payload, true).catch(() => undefined);
      await Promise.race([sent, Bun.sleep(1000)]);
    }
    this.ready = false;
    c.end();
  }
}
