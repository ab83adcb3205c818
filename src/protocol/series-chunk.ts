/**
 * Series chunks (chunk format 2, docs/protocol.md "data (v2)"): the agent's compacted buffer
 * rows, sent as stored. One CBOR array of `[type, id, block]`, one entry per series, where
 * `block` is a point codec block (src/codec) holding that series' points in the order they
 * were written. Availability travels as its numeric code (AVAILABILITY_CODE).
 */
import type { Decoder, Encoder } from "cbor-x";
import { decodePoints, encodePoints, PointCodecError } from "../codec/index.ts";
import { AVAILABILITY_CODE, AVAILABILITY_VALUES, type DataPoint, type MetricType, type MetricWrite, type Tags } from "../metrics/model.ts";
import { encodeSized } from "./sized-encoding.ts";

/**
 * Chunk formats; a buffer row records its format, and a data batch says each chunk's. Format 3
 * holds series definitions, no points (definitions-chunk.ts).
 */
export const CHUNK_FORMAT = { cbor: 1, series: 2, definitions: 3 } as const;
export type ChunkFormat = (typeof CHUNK_FORMAT)[keyof typeof CHUNK_FORMAT];
/**
 * Added to a chunk's recorded format (the agent buffer's rows, DataBatch.formats) when its
 * points include staleness markers: such chunks travel in version 3 batches, whose `fmts`
 * carry the plain formats (data-encode.ts).
 */
export const MARKERS_FLAG = 0x10;

/** A series chunk that cannot be read: not the shape above, or a block that fails its checks. */
export class SeriesChunkError extends Error {}

/**
 * Merges the writes per (type, id), keeping each series' points in write order, and encodes
 * one block per series. Throws TypeError on values the type cannot hold (never produced by
 * the agent, whose intake validated every point). A gauge or counter NaN is a staleness marker.
 */
export function encodeSeriesChunk(enc: Encoder, writes: readonly MetricWrite[]): Uint8Array {
  const bySeries = new Map<string, { type: MetricType; id: string; points: DataPoint[] }>();
  for (const w of writes) {
    const key = `${w.type}\u0000${w.id}`;
    let s = bySeries.get(key);
    if (!s) bySeries.set(key, (s = { type: w.type, id: w.id, points: [] }));
    for (const p of w.points) s.points.push(p);
  }
  const entries: [MetricType, string, Uint8Array][] = [];
  let size = 16;
  for (const s of bySeries.values()) {
    if (s.points.length === 0) continue;
    const block = encodeSeries(s.type, s.points);
    entries.push([s.type, s.id, block]);
    size += s.id.length + block.byteLength + 16;
  }
  // A merged row is up to a megabyte: a buffer of its own (sized-encoding.ts).
  return encodeSized(enc, entries, size);
}

function encodeSeries(type: MetricType, points: readonly DataPoint[]): Uint8Array {
  const n = points.length;
  const ts = new Float64Array(n);
  let tags: (Tags | undefined)[] | undefined;
  for (let i = 0; i < n; i++) {
    const p = points[i]!;
    ts[i] = p.timestamp;
    if (p.tags !== undefined) (tags ??= new Array(n))[i] = p.tags;
  }
  if (type === "string") return encodePoints({ ts, strs: points.map((p) => p.value as string), tags });
  const nums = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const v = points[i]!.value;
    const avail = type === "availability";
    nums[i] = avail ? (AVAILABILITY_CODE[v as keyof typeof AVAILABILITY_CODE] ?? Number.NaN) : (v as number);
    if ((avail && Number.isNaN(nums[i]!)) || typeof v !== (avail ? "string" : "number")) throw new TypeError(`${type} ${JSON.stringify(v)} cannot be encoded`);
  }
  return encodePoints({ ts, nums, tags });
}

/**
 * Decodes a series chunk into metric writes (one per series, points as objects). Every block's
 * checksum and structure are verified; a bad one throws SeriesChunkError naming the series,
 * never returns other points. Values are not validated here: callers that take input from the
 * network check the writes as they check any chunk.
 */
export function decodeSeriesChunk(dec: Decoder, body: Uint8Array): MetricWrite[] {
  let raw: unknown;
  try {
    raw = dec.decode(body);
  } catch (e) {
    throw new SeriesChunkError(`series chunk is not valid CBOR: ${(e as Error).message}`);
  }
  if (!Array.isArray(raw) || raw.length === 0) throw new SeriesChunkError("a series chunk is a non-empty array of [type, id, block]");
  const out: MetricWrite[] = new Array(raw.length);
  for (let i = 0; i < raw.length; i++) {
    const e = raw[i] as unknown;
    if (!Array.isArray(e) || e.length !== 3 || typeof e[0] !== "string" || typeof e[1] !== "string" || !(e[2] instanceof Uint8Array)) {
      throw new SeriesChunkError(`series ${i}: expected [type, id, block]`);
    }
    const [type, id, block] = e as [string, string, Uint8Array];
    try {
      out[i] = { type: type as MetricType, id, points: toPoints(type, block) };
    } catch (err) {
      if (err instanceof PointCodecError || err instanceof SeriesChunkError) throw new SeriesChunkError(`series ${i} (${JSON.stringify(id).slice(0, 80)}): ${err.message}`);
      throw err;
    }
  }
  return out;
}

function toPoints(type: string, block: Uint8Array): DataPoint[] {
  const d = decodePoints(block);
  const n = d.ts.length;
  if (n === 0) throw new SeriesChunkError("a series has at least one point");
  if ((type === "string") !== (d.strs !== undefined)) throw new SeriesChunkError(`a ${type} series cannot hold ${d.strs ? "strings" : "numbers"}`);
  const points: DataPoint[] = new Array(n);
  for (let i = 0; i < n; i++) {
    let value: number | string;
    if (d.strs) value = d.strs[i]!;
    else if (type === "availability") {
      const name = AVAILABILITY_VALUES[d.nums![i]!];
      if (name === undefined) throw new SeriesChunkError(`availability code ${d.nums![i]} is unknown`);
      value = name;
    } else value = d.nums![i]!;
    const tags = d.tags?.[i];
    points[i] = tags === undefined ? { timestamp: d.ts[i]!, value } : { timestamp: d.ts[i]!, value, tags };
  }
  return points;
}
