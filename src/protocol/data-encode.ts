/**
 * Encoding of batches as the agent sends them: `data` batches of points, and `events` batches
 * of what its local triggers fired, in the same envelope (decoding is in messages.ts and
 * events-messages.ts).
 */
import type { Encoder } from "cbor-x";
import type { MetricWrite } from "../metrics/model.ts";
import { isStaleMarker } from "../prometheus/staleness.ts";
import { PROTOCOL_VERSION } from "./envelope.ts";
import { CHUNK_FORMAT, MARKERS_FLAG } from "./series-chunk.ts";

/**
 * Version of a data batch that carries series chunks (format 2) beside CBOR chunks: its
 * `fmts` field gives each chunk's format. A batch of CBOR chunks alone is still sent as
 * version 1, so collectors that predate version 2 keep taking an upgraded agent's live data.
 */
export const DATA_VERSION_SERIES = 2;
/**
 * Version of a data batch whose gauge and counter values may be staleness markers (NaN,
 * src/prometheus/staleness.ts); otherwise as version 2. Older collectors refuse it unread and
 * unacknowledged (an unknown version), so the agent keeps such a batch until an upgraded
 * collector takes it; they would refuse a NaN in version 1 or 2 for good, losing the batch.
 * Batches without markers keep versions 1 and 2.
 */
export const DATA_VERSION_MARKERS = 3;

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
  /**
   * Format of each chunk (CHUNK_FORMAT), with MARKERS_FLAG added when it holds staleness
   * markers; absent means all CBOR chunks (format 1) without markers.
   */
  formats?: readonly number[];
}

/** True when some gauge or counter point is a staleness marker (its chunk is flagged MARKERS_FLAG). */
export function hasStaleMarkers(writes: readonly MetricWrite[]): boolean {
  for (const w of writes) {
    if (w.type !== "gauge" && w.type !== "counter") continue;
    for (const p of w.points) if (typeof p.value === "number" && isStaleMarker(p.value)) return true;
  }
  return false;
}

export function encodeChunk(enc: Encoder, writes: MetricWrite[]): Uint8Array {
  return enc.encode(writes);
}

export type BatchKind = "data" | "events";

export function encodeData(enc: Encoder, b: DataBatch, kind: BatchKind = "data"): Uint8Array {
  if (kind === "data" && b.formats?.some((f) => f & MARKERS_FLAG)) {
    const fmts = b.formats.map((f) => f & ~MARKERS_FLAG);
    return enc.encode({ v: DATA_VERSION_MARKERS, kind, session: b.session, seq: b.seq, sentAt: b.sentAt, replay: b.replay, chunks: b.chunks, fmts });
  }
  if (kind === "data" && b.formats?.some((f) => f !== CHUNK_FORMAT.cbor)) {
    return enc.encode({ v: DATA_VERSION_SERIES, kind, session: b.session, seq: b.seq, sentAt: b.sentAt, replay: b.replay, chunks: b.chunks, fmts: b.formats });
  }
  return enc.encode({ v: PROTOCOL_VERSION, kind, session: b.session, seq: b.seq, sentAt: b.sentAt, replay: b.replay, chunks: b.chunks });
}
