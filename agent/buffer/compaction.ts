/**
 * Compaction of the agent's buffer (docs/storage.md, "The agent's buffer"): rows that waited
 * longer than `minAgeMs` and are not in flight are merged, per window of buffering time, into
 * one row of series chunks (one codec block per series). Runs inside the caller's transaction,
 * so a crash at any point leaves either the rows as they were or the merged row, never both.
 */
import type { Database } from "bun:sqlite";
import type { Decoder, Encoder } from "cbor-x";
import type { MetricWrite } from "../../src/metrics/model.ts";
import { CHUNK_FORMAT, decodeSeriesChunk, encodeSeriesChunk, MARKERS_FLAG } from "../../src/protocol/series-chunk.ts";
import { releaseEncoding } from "../../src/protocol/sized-encoding.ts";
import { runBindingBlob } from "../../src/sqlite/blob-statement.ts";

export interface CompactionOptions {
  /** Rows buffered less than this long ago are left alone (live data is acked in milliseconds). */
  minAgeMs: number;
  /** Rows merge only with rows buffered in the same window of this length (aligned to the epoch). */
  windowMs: number;
  /** Points a merged row holds at most (it is sent whole, in one batch). */
  maxPoints: number;
  /** Stored bytes of the rows merged into one, at most (an upper bound of the merged row's size). */
  maxBytes: number;
  /** Points of uncompacted rows taken per call at most, so one call stays short after a long outage. */
  maxPointsPerCall: number;
}

export const DEFAULT_COMPACTION: CompactionOptions = {
  minAgeMs: 60_000,
  windowMs: 3_600_000,
  maxPoints: 50_000,
  maxBytes: 1024 * 1024,
  maxPointsPerCall: 200_000,
};

/** Bytes a point above which a row of raw points holds about one point per series (see compactRows). */
const SPARSE_BYTES_PER_POINT = 64;
/** Times its largest row's points a group of such rows must hold, at least, to be merged. */
const SPARSE_MIN_ROWS = 4;

/** Whether raw row `r` may join a group of `window` holding `points` and `bytes` so far. */
function joins(r: Row, group: { window: number; points: number; bytes: number }, o: CompactionOptions): boolean {
  return (r.fmt & ~MARKERS_FLAG) === CHUNK_FORMAT.cbor && Math.floor(r.enq / o.windowMs) === group.window && group.points + r.n <= o.maxPoints && group.bytes + r.bytes <= o.maxBytes;
}

/**
 * Whether the group that rows[i] would start (consecutive rows, as compactRows builds it) holds
 * SPARSE_MIN_ROWS times the points of its largest row. A row of about one point per series is
 * about one scrape of its source: a group gains only when its largest source's series get
 * several points each. Counting rows instead merged one 5,000-series scrape with the few small
 * rows around it (host metrics, own metrics) into a row no smaller (152 against 168 bytes a
 * point), for a third of a scraping agent's CPU (docs/inputs.md, "Measured").
 */
function sparseGroupPays(rows: readonly Row[], i: number, window: number, o: CompactionOptions, cutoff: number, isBusy: (id: number) => boolean): boolean {
  let points = 0;
  let bytes = 0;
  let largest = 0;
  for (let k = i; k < rows.length; k++) {
    const r = rows[k]!;
    if (r.enq >= cutoff || isBusy(r.id) || !joins(r, { window, points, bytes }, o)) break;
    points += r.n;
    bytes += r.bytes;
    largest = Math.max(largest, r.n);
    if (points >= SPARSE_MIN_ROWS * largest && k - i + 1 >= SPARSE_MIN_ROWS) return true;
  }
  return false;
}

/** Chunk ids that must not change: batches in flight and acknowledged spans not yet removed. */
export interface IdRange {
  lo: number;
  hi: number;
}

interface Row {
  id: number;
  enq: number;
  fmt: number;
  n: number;
  bytes: number;
}

export interface CompactionResult {
  /** Rows replaced and rows written. */
  removed: number;
  added: number;
  /** Change of the rows' counted bytes (negative: the buffer shrank). */
  bytesDelta: number;
  /** Rows left as they were because they could not be decoded or encoded. */
  unreadable: number;
}

/**
 * Merges old rows of `chunks` whose ids lie in `spans` (the backlog's gaps between acknowledged
 * ranges, or the local window's ranges: acked-ranges.ts), never across two spans, so a merged
 * row stays where its rows were. Every group is a run of consecutive rows (by id) of one window, possibly
 * starting with an already merged row; the merged row takes the id and buffering time of the
 * group's newest row, so ids stay unique and ordered by buffering time, and an ack of an id
 * range still covers exactly the points it covered when the range was sent.
 */
export function compactRows(
  db: Database,
  enc: Encoder,
  dec: Decoder,
  now: number,
  o: CompactionOptions,
  busy: readonly IdRange[],
  rowOverhead: number,
  spans: readonly (readonly [number, number])[] = [[0, Number.MAX_SAFE_INTEGER]],
): CompactionResult {
  const result: CompactionResult = { removed: 0, added: 0, bytesDelta: 0, unreadable: 0 };
  const cutoff = now - o.minAgeMs;
  const page = db.query<Row, [number, number, number]>("SELECT id, enq, fmt, n, bytes FROM chunks WHERE id > ? AND id <= ? ORDER BY id LIMIT ?");
  const body = db.query<{ body: Uint8Array }, [number]>("SELECT body FROM chunks WHERE id = ?");
  const del = db.query<null, [number]>("DELETE FROM chunks WHERE id = ?");
  const insertSql = "INSERT INTO chunks (id, enq, fmt, n, bytes, body) VALUES (?, ?, ?, ?, ?, ?)";
  const insert = db.query<null, [number, number, number, number, number, Uint8Array]>(insertSql);
  const isBusy = (id: number) => busy.some((r) => id >= r.lo && id <= r.hi);

  // `markers`: MARKERS_FLAG when a merged row holds staleness markers, as its rows' formats say.
  let group: { rows: Row[]; writes: MetricWrite[]; window: number; points: number; bytes: number; raw: number; markers: number } | undefined;
  let taken = 0;
  const close = () => {
    const g = group;
    group = undefined;
    if (!g || g.raw === 0) return;
    let merged: Uint8Array;
    try {
      merged = encodeSeriesChunk(enc, g.writes);
    } catch {
      // A value the codec cannot hold (not one the intake lets in): leave these rows as they are.
      result.unreadable += g.rows.length;
      return;
    }
    let n = 0;
    for (const w of g.writes) n += w.points.length;
    const last = g.rows[g.rows.length - 1]!;
    for (const r of g.rows) {
      del.run(r.id);
      result.bytesDelta -= r.bytes;
    }
    const bytes = merged.byteLength + rowOverhead;
    runBindingBlob(db, insert, insertSql, [last.id, last.enq, CHUNK_FORMAT.series | g.markers, n, bytes, merged], merged);
    // SQLite copied it: a large one is freed now, not at the next full collection.
    releaseEncoding(merged);
    result.removed += g.rows.length;
    result.added++;
    result.bytesDelta += bytes;
  };
  const read = (r: Row, fmt: number): MetricWrite[] | undefined => {
    const b = body.get(r.id)?.body;
    if (!b) return undefined;
    try {
      return fmt === CHUNK_FORMAT.series ? decodeSeriesChunk(dec, b) : (dec.decode(b) as MetricWrite[]);
    } catch {
      return undefined;
    }
  };

  scan: for (const [lo, hi] of spans) {
    // A group never spans two of them: one's rows are the window's, the next one's the backlog's.
    close();
    let after = lo - 1;
    for (;;) {
      const rows = page.all(after, hi, 512);
      if (rows.length === 0) break;
      for (let i = 0; i < rows.length; i++) {
        const r = rows[i]!;
        after = r.id;
        if (r.enq >= cutoff || taken >= o.maxPointsPerCall) break scan;
        const fmt = r.fmt & ~MARKERS_FLAG;
        if (isBusy(r.id) || (fmt !== CHUNK_FORMAT.cbor && fmt !== CHUNK_FORMAT.series)) {
          close();
          continue;
        }
        const window = Math.floor(r.enq / o.windowMs);
        // A merged row can only start a group: merging it again into a later one would re-encode it on every call.
        const fits = group !== undefined && joins(r, group, o);
        if (!fits) close();
        // Rows of about one point per series (over 64 bytes a point: each carries its series' id,
        // as a scrape's do) gain only when several merge, so that a series gets several points: a
        // scrape's rows, one or two within maxBytes, came out no smaller, for 2 s of CPU a minute
        // and a burst of garbage (docs/inputs.md, "Memory"). Such a group is left until it can be larger.
        if (!fits && fmt === CHUNK_FORMAT.cbor && r.bytes > SPARSE_BYTES_PER_POINT * r.n && !sparseGroupPays(rows, i, window, o, cutoff, isBusy)) continue;
        // A merged row that is already full is left as it is without decoding it.
        if (fmt === CHUNK_FORMAT.series && (r.n >= o.maxPoints || r.bytes >= o.maxBytes)) continue;
        const writes = read(r, fmt);
        if (!writes) {
          result.unreadable++;
          close();
          continue;
        }
        group ??= { rows: [], writes: [], window, points: 0, bytes: 0, raw: 0, markers: 0 };
        group.markers |= r.fmt & MARKERS_FLAG;
        group.rows.push(r);
        for (const w of writes) group.writes.push(w);
        group.points += r.n;
        group.bytes += r.bytes;
        if (fmt === CHUNK_FORMAT.cbor) {
          group.raw++;
          taken += r.n;
        }
      }
    }
  }
  close();
  return result;
}
