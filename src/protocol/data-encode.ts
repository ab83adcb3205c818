/**
 * Encoding of batches as the agent sends them: `data` batches of points, and `events` batches
 * of what its local triggers fired, in the same envelope (decoding is in messages.ts and
 * events-messages.ts).
 */
import type { Encoder } from "cbor-x";
import type { MetricWrite } from "../metrics/model.ts";
import { PROTOCOL_VERSION } from "./envelope.ts";

/** A data batch: chunks of points as the agent buffered them, each a nested CBOR item. */
export interface DataBatch {
  /** Increments on every start of the agent's buffer; seq restarts at 1 with it. */
  session: number;
  seq: number;
  /** Agent clock when this copy was sent, ms. */
  sentAt: number;
  /** True when replaying backlog from an outage, false for fresh data. */
  replay: boolean;
  chunks: Uint8Array[];
}

export function encodeChunk(enc: Encoder, writes: MetricWrite[]): Uint8Array {
  return enc.encode(writes);
}

export type BatchKind = "data" | "events";

export function encodeData(enc: Encoder, b: DataBatch, kind: BatchKind = "data"): Uint8Array {
  return enc.encode({ v: PROTOCOL_VERSION, kind, session: b.session, seq: b.seq, sentAt: b.sentAt, replay: b.replay, chunks: b.chunks });
}
