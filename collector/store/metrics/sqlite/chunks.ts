import { decodePoints, decodePointsInto, encodePoints, PointCodecError } from "../../../../src/codec/index.ts";
import type { Tags } from "../../../../src/metrics/model.ts";
import type { ReadBuffers } from "../../../../src/promql/values.ts";
import { CorruptDataError } from "../../../../src/sqlite/corrupt-data.ts";
import { type CachedChunk, decodedBytes } from "../chunk-cache.ts";
import { decodeChunk } from "../chunk-codec.ts";
import type { Run } from "../../../../src/metrics/run.ts";
import { lowerBound } from "../../../../src/metrics/series.ts";
import { isNumeric, type SeriesMeta, type StoreState } from "./state.ts";

/**
 * Sealed chunks on disk and back. Format 1 (schema version 3 on): one point-codec block in
 * `body`, checksummed. Format 0 (older databases): raw float64 columns (chunk-codec.ts), read
 * as they are until retention removes them. See docs/storage.md, "Compressed chunks".
 */

/** The block a flush stores for one chunk's points (tags only when some point has them). */
export function encodeChunkBlock(r: Run): Uint8Array {
  const tags = r.tags?.some((t) => t !== undefined) ? r.tags : undefined;
  return encodePoints(r.nums ? { ts: r.ts, nums: r.nums, tags } : { ts: r.ts, strs: r.strs ?? [], tags });
}

interface ChunkRow {
  format: number;
  n: number;
  body: Uint8Array | null;
  ts: Uint8Array;
  vals: Uint8Array;
  tags: Uint8Array | null;
}

/**
 * A chunk that fails its checksum or does not parse: logged once (naming the metric) and
 * refused, so a read never answers with points other than those written.
 */
function corruptChunk(s: StoreState, m: SeriesMeta, cid: number, why: string): never {
  s.cache.delete(cid);
  s.hot.delete(cid);
  if (!s.corruptChunks.has(cid)) {
    s.corruptChunks.add(cid);
    s.opts.log?.error("corrupt chunk in metrics.db: reads of its range are refused until it is restored from a backup or the metric is deleted", {
      tenant: m.tenant,
      type: m.type,
      metric: m.id,
      chunk: cid,
      err: why,
    });
  }
  throw new CorruptDataError(
    `Stored data of ${m.type} metric '${m.id}' is corrupt (chunk ${cid}: ${why}); reads of this time range fail until it is restored from a backup`,
  );
}

/**
 * The chunk from the cache, else from the table (then cached); undefined when it was deleted
 * meanwhile. `compressed`: the block rather than a decoded copy (smaller to hand over).
 */
export function loadChunk(s: StoreState, m: SeriesMeta, cid: number, compressed = false): CachedChunk | undefined {
  const cached = compressed ? s.cache.get(cid) : (s.hot.get(cid) ?? s.cache.get(cid));
  if (cached) {
    cached.reads = (cached.reads ?? 0) + 1;
    if (cached.block) s.chunkReads.block++;
    else s.chunkReads.decoded++;
    return cached;
  }
  const row = s.st.selectChunk.get(cid) as ChunkRow | null;
  if (!row) return undefined;
  s.chunkReads.database++;
  let c: CachedChunk;
  if (row.format === 1) {
    if (!row.body) corruptChunk(s, m, cid, "no point block");
    c = { n: row.n, block: row.body };
  } else c = { n: row.n, run: decodeChunk(row, isNumeric(m.type)) };
  s.cache.set(cid, c);
  return c;
}

function decodeBlockInto(s: StoreState, m: SeriesMeta, cid: number, c: CachedChunk, ts: Float64Array, nums: Float64Array, at: number) {
  try {
    const r = decodePointsInto(c.block!, ts, nums, at);
    if (r.points !== c.n) corruptChunk(s, m, cid, `the block holds ${r.points} points, the index says ${c.n}`);
    return r.tags;
  } catch (e) {
    if (e instanceof PointCodecError || e instanceof RangeError || e instanceof TypeError) corruptChunk(s, m, cid, e.message);
    throw e;
  }
}

function decodeBlock(s: StoreState, m: SeriesMeta, cid: number, c: CachedChunk): Run {
  try {
    const d = decodePoints(c.block!);
    if (d.ts.length !== c.n || !d.strs) corruptChunk(s, m, cid, `the block holds ${d.ts.length} ${d.strs ? "strings" : "numbers"}, the index says ${c.n} strings`);
    return { ts: d.ts, strs: d.strs, tags: d.tags };
  } catch (e) {
    if (e instanceof PointCodecError) corruptChunk(s, m, cid, e.message);
    throw e;
  }
}

/**
 * The points in [start, end) of `n` sorted ones decoded into `both` (timestamps from 0, values
 * from `room`), moved to its start (timestamps, then values) and the rest of the room handed
 * back. Why: whole chunks are decoded (1,024 points), and a dashboard's hour of a series needs a
 * few hundred of them; a query over hundreds of series held its arena's room for every point
 * of their chunks (issue 28).
 */
function keepInRange(both: Float64Array, room: number, n: number, start: number, end: number, buffers: ReadBuffers): Run {
  const a = lowerBound(both, start, 0, n);
  const k = lowerBound(both, end, a, n) - a;
  if (k !== room) {
    both.copyWithin(0, a, a + k);
    both.copyWithin(k, room + a, room + a + k);
    buffers.shrink(both, 2 * k);
  }
  return { ts: both.subarray(0, k), nums: both.subarray(k, 2 * k) };
}

/**
 * The points of the chunks `cids` (in write order), then those of `tail` (the head's), as runs
 * for mergeRuns. A numeric series' chunks are decoded into one pair of arrays; when they follow
 * each other in time (the usual case) they come back as a single run over it, with the tail
 * appended when it starts after them, so no merge copies them again.
 */
export function chunkRuns(s: StoreState, m: SeriesMeta, cids: readonly number[], start: number, end: number, tail?: Run, buffers?: ReadBuffers): Run[] {
  const chunks: [number, CachedChunk][] = [];
  let total = 0;
  for (const cid of cids) {
    const c = loadChunk(s, m, cid);
    if (!c) continue;
    chunks.push([cid, c]);
    total += c.n;
  }
  const tailRuns = tail ? [tail] : [];
  if (!isNumeric(m.type)) return [...chunks.map(([cid, c]) => c.run ?? decodeBlock(s, m, cid, c)), ...tailRuns];
  // One allocation for both columns and room for the tail: allocating typed arrays costs as much
  // as decoding them; a scan's reused buffer (every position read is written below) costs neither.
  const room = total + (tail?.nums ? tail.ts.length : 0);
  let both: Float64Array;
  if (buffers && room > 0) both = buffers.take(room * 2);
  else {
    both = new Float64Array(room * 2);
    // Garbage once the answer is made: counted toward the memory governor's next collection,
    // as reads alone (a dashboard's refreshes after ingest) otherwise never trigger one.
    s.opts.released?.(room * 16);
  }
  const ts = both.subarray(0, room);
  const nums = both.subarray(room, room * 2);
  let tags: (Tags | undefined)[] | undefined;
  const starts: number[] = [];
  let sorted = true;
  let at = 0;
  for (const [cid, c] of chunks) {
    let t: (Tags | undefined)[] | undefined;
    if (c.block) {
      t = decodeBlockInto(s, m, cid, c, ts, nums, at);
      // Read before: keep a decoded copy, so that a dashboard's next refresh copies instead of
      // decoding; made only when the copies' cache keeps it (not past entries still read).
      if (c.reads && s.hot.admits(decodedBytes(c.n, t))) s.hot.set(cid, { n: c.n, run: { ts: ts.slice(at, at + c.n), nums: nums.slice(at, at + c.n), tags: t } });
    } else {
      ts.set(c.run!.ts, at);
      nums.set(c.run!.nums!, at);
      t = c.run!.tags;
    }
    if (t) {
      tags ??= new Array(room);
      for (let i = 0; i < c.n; i++) tags[at + i] = t[i];
    }
    if (at > 0 && c.n > 0 && ts[at]! <= ts[at - 1]!) sorted = false;
    starts.push(at);
    at += c.n;
  }
  if (sorted && tail?.nums && room > total && (total === 0 || tail.ts[0]! > ts[total - 1]!)) {
    ts.set(tail.ts, total);
    nums.set(tail.nums, total);
    if (tail.tags) {
      tags ??= new Array(room);
      for (let i = 0; i < tail.tags.length; i++) tags[total + i] = tail.tags[i];
    }
    return [tags || !buffers ? { ts, nums, tags } : keepInRange(both, room, room, start, end, buffers)];
  }
  if (tags) tags.length = total;
  if (sorted) return [tags || !buffers ? { ts: ts.subarray(0, total), nums: nums.subarray(0, total), tags } : keepInRange(both, room, total, start, end, buffers), ...tailRuns];
  return [
    ...chunks.map(([, c], k) => {
      const a = starts[k]!;
      const b = a + c.n;
      return { ts: ts.subarray(a, b), nums: nums.subarray(a, b), tags: tags?.slice(a, b) };
    }),
    ...tailRuns,
  ];
}
