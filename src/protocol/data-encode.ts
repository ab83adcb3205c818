/**
 * Encoding of batches as the agent sends them: `data` batches of points, and `events` batches
 * of what its local triggers fired, in the same envelope (decoding is in messages.ts and
 * events-messages.ts).
 */
import type { Encoder } from "cbor-x";
import type { MetricWrite } from "../metrics/model.ts";
import { isStaleMarker } from "../prometheus/staleness.ts";
import { PROTOCOL_VERSION } from "./envelope.ts";
import { EVENTS_CHUNK_FORMAT, EVENTS_VERSION_ACTIONS } from "./events-messages.ts";
import { CHUNK_FORMAT, MARKERS_FLAG } from "./series-chunk.ts";
import { encodePointChunk } from "./point-chunk.ts";
import { encodeSized } from "./sized-encoding.ts";

export { encodeSized, releaseEncoding } from "./sized-encoding.ts";

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
/**
 * Version of a data batch that carries series definitions (chunk format 3, definitions-chunk.ts)
 * besides points, staleness markers allowed as in version 3. Collectors that predate it refuse
 * it unread and unacknowledged, so the agent keeps it until an upgraded collector takes it; they
 * would refuse format 3 in an older version for good, losing the points with it.
 */
export const DATA_VERSION_DEFINITIONS = 4;

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
  /** The sending agent's identity (docs/fleet.md); the collector stores only its feed's holder's batches. */
  instance?: string;
}

/** True when some gauge or counter point is a staleness marker (its chunk is flagged MARKERS_FLAG). */
export function hasStaleMarkers(writes: readonly MetricWrite[]): boolean {
  for (const w of writes) {
    if (w.type !== "gauge" && w.type !== "counter") continue;
    for (const p of w.points) if (typeof p.value === "number" && isStaleMarker(p.value)) return true;
  }
  return false;
}

/** About the CBOR size of metric writes (ids as written, a few bytes a point around them). */
function writesSize(writes: readonly MetricWrite[]): number {
  let n = 16;
  for (const w of writes) n += w.id.length + 24 + w.points.length * 28;
  return n;
}

/**
 * A chunk of writes, each as `{type, id, points}` whatever other keys or key order it has: by
 * hand when they are numbers without tags (point-chunk.ts, the same bytes), else by cbor-x.
 */
export function encodeChunk(enc: Encoder, writes: readonly MetricWrite[]): Uint8Array {
  return encodePointChunk(writes) ?? encodeSized(enc, writes.map((w) => ({ type: w.type, id: w.id, points: w.points })), writesSize(writes));
}

export type BatchKind = "data" | "events";

export function encodeData(enc: Encoder, b: DataBatch, kind: BatchKind = "data"): Uint8Array {
  const who = b.instance === undefined ? {} : { instance: b.instance };
  let size = 256;
  for (const c of b.chunks) size += c.byteLength + 8;
  if (kind === "data" && b.formats?.some((f) => f & MARKERS_FLAG || f === CHUNK_FORMAT.definitions)) {
    const fmts = b.formats.map((f) => f & ~MARKERS_FLAG);
    const v = fmts.includes(CHUNK_FORMAT.definitions) ? DATA_VERSION_DEFINITIONS : DATA_VERSION_MARKERS;
    return encodeSized(enc, { v, kind, session: b.session, seq: b.seq, sentAt: b.sentAt, replay: b.replay, chunks: b.chunks, fmts, ...who }, size);
  }
  if (kind === "data" && b.formats?.some((f) => f !== CHUNK_FORMAT.cbor)) {
    return encodeSized(enc, { v: DATA_VERSION_SERIES, kind, session: b.session, seq: b.seq, sentAt: b.sentAt, replay: b.replay, chunks: b.chunks, fmts: b.formats, ...who }, size);
  }
  // Events batches that carry outcomes of local actions (format 2) are version 2 (events-messages.ts).
  if (kind === "events" && b.formats?.some((f) => f !== EVENTS_CHUNK_FORMAT.items)) {
    return encodeSized(enc, { v: EVENTS_VERSION_ACTIONS, kind, session: b.session, seq: b.seq, sentAt: b.sentAt, replay: b.replay, chunks: b.chunks, fmts: b.formats, ...who }, size);
  }
  return encodeSized(enc, { v: PROTOCOL_VERSION, kind, session: b.session, seq: b.seq, sentAt: b.sentAt, replay: b.replay, chunks: b.chunks, ...who }, size);
}
