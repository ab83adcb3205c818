import type { Decoder, Encoder } from "cbor-x";
import type { Logger } from "../../src/log/logger.ts";
import { decodeAck } from "../../src/protocol/control-messages.ts";
import { type BatchKind, encodeData, releaseEncoding } from "../../src/protocol/data-encode.ts";
import { releaseBuffer } from "../../src/runtime/release-buffer.ts";
import { ProtocolError } from "../../src/protocol/envelope.ts";
import type { Counter } from "../../src/telemetry/registry.ts";
import type { ChunkSpan } from "../buffer/point-buffer.ts";
import type { Plan } from "./send-planner.ts";

/** What the forwarder needs from the buffer. */
export interface AckedStore {
  readonly session: number;
  span(lo: number, hi: number): ChunkSpan | undefined;
  remove(lo: number, hi: number): void;
}

export interface Publisher {
  readonly ready: boolean;
  /** Takes what it needs of `payload` before it returns (the caller frees it then). */
  publish(topic: string, payload: Uint8Array): Promise<void>;
}

export interface ForwarderOptions {
  dataTopic: string;
  /** `data` (points) by default; `events` for what local triggers fired, acked by `events-ack`. */
  kind?: BatchKind;
  /** Batches sent and not yet acknowledged, at most. */
  window: number;
  /** Resend a batch not acknowledged within this time (doubling per attempt, up to 4×). */
  ackTimeoutMs: number;
  /** The agent's identity (docs/fleet.md): sent with every batch; acks naming another one are not ours. */
  instance?: string;
}

export interface ForwarderCounters {
  batchesSent: Counter;
  batchesResent: Counter;
  batchesAcked: Counter;
  pointsAcked: Counter;
  pointsRejected: Counter;
  acksInvalid: Counter;
}

interface InFlight {
  seq: number;
  lo: number;
  hi: number;
  points: number;
  replay: boolean;
  attempts: number;
  /** When to resend if no ack has come. */
  due: number;
  /** When it was first sent. */
  firstSent: number;
}

/**
 * Moves chunks from the buffer to the collector: keeps up to `window` batches in flight,
 * resends those not acknowledged in time (or after a reconnect), and removes chunks from the
 * buffer only when the collector's ack says they are committed. Duplicates are harmless
 * because the collector stores idempotently; losses are not, so doubt always means resend.
 */
export class Forwarder {
  private seq = 0;
  private readonly inflight = new Map<number, InFlight>();
  private wake: ReturnType<typeof setTimeout> | undefined;
  private readonly timer: ReturnType<typeof setInterval>;
  private readyAt = 0;
  /** When the last ack (or refusal) of a batch of this run arrived. */
  lastAckAt: number | undefined;

  constructor(
    private readonly store: AckedStore,
    private readonly planner: { next(): Plan },
    private readonly link: Publisher,
    private readonly enc: Encoder,
    private readonly dec: Decoder,
    private readonly opts: ForwarderOptions,
    private readonly counters: ForwarderCounters,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {
    this.timer = setInterval(() => this.pump(), Math.min(1000, Math.max(50, opts.ackTimeoutMs / 4)));
  }

  get inFlightBatches(): number {
    return this.inflight.size;
  }

  get inFlightPoints(): number {
    let n = 0;
    for (const f of this.inflight.values()) n += f.points;
    return n;
  }

  /** Chunk id ranges of the batches in flight: the buffer must not compact them (an ack names these ranges). */
  inFlightRanges(): { lo: number; hi: number }[] {
    return [...this.inflight.values()].map((f) => ({ lo: f.lo, hi: f.hi }));
  }

  /**
   * Since when the batches in flight have waited for an ack on the current connection: the
   * latest of the last ack, the oldest batch's first send and the connection's start.
   * Undefined when nothing is in flight.
   */
  waitingSince(): number | undefined {
    if (this.inflight.size === 0) return undefined;
    let oldest = Number.POSITIVE_INFINITY;
    for (const f of this.inflight.values()) oldest = Math.min(oldest, f.firstSent);
    return Math.max(oldest, this.readyAt, this.lastAckAt ?? 0);
  }

  /** The link is (again) ready: whatever was in flight may have lost its ack, so resend it now. */
  linkReady(): void {
    const t = this.now();
    this.readyAt = t;
    for (const f of this.inflight.values()) f.due = t;
    this.pump();
  }

  /** Sends what the window allows: overdue resends first, then new batches. */
  pump(): void {
    if (!this.link.ready) return;
    const t = this.now();
    for (const f of this.inflight.values()) if (f.due <= t) this.resend(f, t);
    while (this.link.ready && this.inflight.size < this.opts.window) {
      const plan = this.planner.next();
      if (!plan.span) {
        if (plan.waitMs !== undefined) this.wakeIn(plan.waitMs);
        return;
      }
      const f: InFlight = { seq: ++this.seq, lo: plan.span.lo, hi: plan.span.hi, points: plan.span.points, replay: plan.replay ?? false, attempts: 0, due: 0, firstSent: t };
      this.inflight.set(f.seq, f);
      this.send(f, plan.span, t);
    }
  }

  private wakeIn(ms: number): void {
    if (this.wake) return;
    this.wake = setTimeout(() => {
      this.wake = undefined;
      this.pump();
    }, ms);
  }

  private resend(f: InFlight, t: number): void {
    const span = this.store.span(f.lo, f.hi);
    if (!span) {
      // Every chunk of it was dropped by the buffer limits meanwhile (already counted there).
      this.inflight.delete(f.seq);
      return;
    }
    f.points = span.points;
    this.counters.batchesResent.inc();
    this.send(f, span, t);
  }

  private send(f: InFlight, span: ChunkSpan, t: number): void {
    f.attempts++;
    f.due = t + this.opts.ackTimeoutMs * Math.min(4, 2 ** (f.attempts - 1));
    const batch = { session: this.store.session, seq: f.seq, sentAt: t, replay: f.replay, chunks: span.bodies, formats: span.formats, instance: this.opts.instance };
    const payload = encodeData(this.enc, batch, this.opts.kind);
    // The rows read back are this batch's alone, and publish copies the payload into its packet:
    // large ones are freed now, not at the next full collection (src/runtime/release-buffer.ts).
    for (const b of span.bodies) releaseBuffer(b);
    const sent = this.link.publish(this.opts.dataTopic, payload);
    releaseEncoding(payload);
    sent.then(
      () => {
        if (f.attempts === 1) this.counters.batchesSent.inc();
      },
      () => {
        // The connection dropped before the broker took it: resend once ready again.
        f.due = 0;
      },
    );
  }

  onAck(payload: Uint8Array): void {
    let ack: ReturnType<typeof decodeAck>;
    try {
      ack = decodeAck(this.dec, payload, this.opts.kind === "events" ? "events-ack" : "ack");
    } catch (e) {
      this.counters.acksInvalid.inc();
      this.log.warn("ignoring invalid ack", { err: e instanceof ProtocolError ? e.message : String(e) });
      return;
    }
    // Acks of an earlier run name batches this run does not know; their chunks get resent.
    if (ack.session !== this.store.session) return;
    // Another agent on the same feed's topic (a cloned device): its acks are not for us.
    if (ack.instance !== undefined && this.opts.instance !== undefined && ack.instance !== this.opts.instance) return;
    if (ack.seqs.some((s) => this.inflight.has(s)) || (ack.rejected ?? []).some((r) => this.inflight.has(r.seq))) this.lastAckAt = this.now();
    for (const seq of ack.seqs) {
      const f = this.inflight.get(seq);
      if (!f) continue;
      this.inflight.delete(seq);
      this.store.remove(f.lo, f.hi);
      this.counters.batchesAcked.inc();
      this.counters.pointsAcked.inc(f.points);
    }
    // The collector refused these for a passing reason (a full disk) that has passed: resend now.
    const t = this.now();
    for (const seq of ack.retry ?? []) {
      const f = this.inflight.get(seq);
      if (f) f.due = t;
    }
    for (const r of ack.rejected ?? []) {
      const f = this.inflight.get(r.seq);
      if (!f) continue;
      // A refused batch would be refused again: drop it rather than block the queue.
      this.inflight.delete(r.seq);
      this.store.remove(f.lo, f.hi);
      this.counters.pointsRejected.inc(f.points);
      this.log.warn("collector refused a batch; its points are dropped", { seq: r.seq, points: f.points, reason: r.reason });
    }
    this.pump();
  }

  close(): void {
    clearInterval(this.timer);
    if (this.wake) clearTimeout(this.wake);
  }
}
