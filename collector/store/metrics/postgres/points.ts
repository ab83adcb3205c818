import { type DecodedBlock, decodePoints, encodePoints, MAX_POINTS, PointCodecError } from "../../../../src/codec/index.ts";
import { AVAILABILITY_CODE, type Availability, DAY_MS, type MetricType, type MetricWrite, type Tags } from "../../../../src/metrics/model.ts";
import { CorruptDataError } from "../../../../src/sqlite/corrupt-data.ts";
import { emptyRun, mergeRuns, type Run, sliceRun } from "../../../../src/metrics/run.ts";
import { type PgContext, numArray, textArray } from "./context.ts";
import { insertTenantRow } from "./definitions.ts";
import { seriesPartition } from "./partition-step.ts";
import { decodeSmallBlock, encodeSmallBlock, isSmallBlock, SMALL_MAX } from "./small-block.ts";

/**
 * Points of the PostgreSQL metrics store. A write commits, before it resolves, one row of
 * metric_blocks per series it touches: that series' points of the write as one point-codec
 * block (so a write of 25 points × 200 series is 200 rows, not 5,000), which any collector
 * reads at once. Blocks are not deduplicated when written: a read (and the seal) merges the
 * series' chunks, then its blocks in the order they were written (bid), the later winning a
 * timestamp. All in one statement, one snapshot: a seal committing meanwhile can neither hide
 * a point nor show it twice.
 */

const isNumeric = (t: MetricType) => t !== "string";

interface SeriesPoints {
  type: MetricType;
  id: string;
  /** The series' entries of the write, in order. */
  writes: MetricWrite[];
}

/** The write's blocks, one per series (the last point of a timestamp in the write wins), sorted by series. */
interface Blocks {
  type: string[];
  metric: string[];
  lo: number[];
  hi: number[];
  n: number[];
  body: string[];
  points: number;
}

const numberOf = (type: MetricType, v: number | string): number => (type === "availability" ? AVAILABILITY_CODE[v as Availability] : (v as number));
const hasTags = (t: Tags | undefined): boolean => t !== undefined && Object.keys(t).length > 0;

function pushBlock(out: Blocks, sp: SeriesPoints, lo: number, hi: number, n: number, block: Uint8Array): void {
  out.type.push(sp.type);
  out.metric.push(sp.id);
  out.lo.push(lo);
  out.hi.push(hi);
  out.n.push(n);
  out.body.push(Buffer.from(block.buffer, block.byteOffset, block.byteLength).toString("hex"));
  out.points += n;
}

function blocksOf(writes: MetricWrite[], smallRaw: boolean): Blocks {
  const bySeries = new Map<string, SeriesPoints>();
  for (const w of writes) {
    if (w.points.length === 0) continue;
    const key = `${w.type}\u0000${w.id}`;
    const sp = bySeries.get(key);
    if (sp) sp.writes.push(w);
    else bySeries.set(key, { type: w.type, id: w.id, writes: [w] });
  }
  // Sorted: two writers insert (and take the series rows' key locks) in one order.
  const list = [...bySeries.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map((e) => e[1]);
  const out: Blocks = { type: [], metric: [], lo: [], hi: [], n: [], body: [], points: 0 };
  for (const sp of list) {
    const only = sp.writes.length === 1 && sp.writes[0]!.points.length === 1 ? sp.writes[0]!.points[0]! : undefined;
    if (only && smallRaw && sp.type !== "string" && !hasTags(only.tags)) {
      // An agent's live batch: one untagged point per series, stored raw without further ado.
      const t = only.timestamp;
      pushBlock(out, sp, t, t, 1, encodeSmallBlock([t], [numberOf(sp.type, only.value)]));
      continue;
    }
    const points = new Map<number, { value: number | string; tags?: Tags }>();
    for (const w of sp.writes) for (const p of w.points) points.set(p.timestamp, p);
    const ts = Float64Array.from(points.keys()).sort();
    for (let a = 0; a < ts.length; a += MAX_POINTS) {
      const part = ts.subarray(a, Math.min(ts.length, a + MAX_POINTS));
      const count = part.length;
      const pts = Array.from(part, (t) => points.get(t)!);
      const tags = pts.some((p) => hasTags(p.tags)) ? pts.map((p) => (hasTags(p.tags) ? p.tags : undefined)) : undefined;
      let block: Uint8Array;
      if (sp.type === "string") block = encodePoints({ ts: part, strs: pts.map((p) => p.value as string), tags });
      else {
        const nums = Float64Array.from(pts, (p) => numberOf(sp.type, p.value));
        // A few points (an agent's live batch: one) are stored raw, cheap to write and to seal.
        block = smallRaw && !tags && count <= SMALL_MAX ? encodeSmallBlock(part, nums) : encodePoints({ ts: part, nums, tags });
      }
      pushBlock(out, sp, part[0]!, part[count - 1]!, count, block);
    }
  }
  return out;
}

/** Deadlock or serialization failure: the transaction changed nothing and can run again. */
const retryable = (e: unknown) => {
  const errno = (e as { errno?: unknown } | null)?.errno;
  return errno === "40P01" || errno === "40001";
};

/**
 * Commits the points (creating tenant and series as needed) in one transaction. Each row
 * carries its expiry, fixed by the retention in force when it is written.
 */
export async function writePoints(c: PgContext, tenant: string, writes: MetricWrite[]): Promise<void> {
  const b = blocksOf(writes, c.smallRawBlocks);
  if (b.points === 0) return;
  const types = textArray(b.type);
  const ids = textArray(b.metric);
  // bytea[] as hex literals: `{"\\x0a0b…",…}`.
  const bodies = `{${b.body.map((h) => `"\\\\x${h}"`).join(",")}}`;
  for (let attempt = 1; ; attempt++) {
    const now = c.now();
    try {
      await c.tx(async (t) => {
        await insertTenantRow(c, t, tenant);
        // Only missing series are inserted: the common case neither locks nor burns a sid.
        await c.rows(
          `INSERT INTO metric_series (tenant, part, type, metric)
           SELECT ?, ?, u.type, u.metric FROM unnest(?::text[], ?::text[]) AS u(type, metric)
           WHERE NOT EXISTS (SELECT 1 FROM metric_series s WHERE s.tenant = ? AND s.type = u.type AND s.metric = u.metric)
           ORDER BY u.type, u.metric
           ON CONFLICT (tenant, type, metric) DO NOTHING`,
          [tenant, seriesPartition(tenant), types, ids, tenant],
          t,
        );
        // Each block carries its expiry, fixed by the retention in force when it is written.
        await c.rows(
          `INSERT INTO metric_blocks (part, sid, start_ts, end_ts, n, written, expires_at, body)
           SELECT s.part, s.sid, u.lo, u.hi, u.n, ?, ? + coalesce(s.retention, (tn.retentions::jsonb ->> s.type)::bigint, ?) * ${DAY_MS}, u.body
           FROM unnest(?::text[], ?::text[], ?::float8[], ?::float8[], ?::int[], ?::bytea[]) WITH ORDINALITY AS u(type, metric, lo, hi, n, body, o)
           JOIN metric_series s ON s.tenant = ? AND s.type = u.type AND s.metric = u.metric
           LEFT JOIN metric_tenants tn ON tn.id = s.tenant
           ORDER BY u.o`,
          [now, now, c.defaultRetentionDays, types, ids, numArray(b.lo), numArray(b.hi), numArray(b.n), bodies, tenant],
          t,
        );
      });
      return;
    } catch (e) {
      if (attempt >= 3 || !retryable(e)) throw e;
    }
  }
}

interface ReadRow {
  /** 0: the series exists; 1: a chunk; 2: a block. */
  kind: number;
  /** The chunk's cid or the block's bid. */
  seq: string | null;
  n: number | null;
  body: Uint8Array | null;
}

/** A stored block: a sealed chunk (its cid) or an unsealed block (its bid). */
export interface StoredBlock {
  kind: "chunk" | "block";
  seq: number;
  n: number;
  body: Uint8Array;
}

function corrupt(c: PgContext, tenant: string, type: MetricType, id: string, b: StoredBlock, why: string): never {
  const key = `${b.kind} ${b.seq}`;
  if (!c.corruptChunks.has(key)) {
    c.corruptChunks.add(key);
    c.log?.error(`corrupt ${b.kind} in PostgreSQL: reads of its range are refused until it is restored from a backup or the metric is deleted`, {
      tenant,
      type,
      metric: id,
      [b.kind]: b.seq,
      err: why,
    });
  }
  throw new CorruptDataError(
    `Stored data of ${type} metric '${id}' is corrupt (${key}: ${why}); reads of this time range fail until it is restored from a backup`,
  );
}

/**
 * The points of a stored block, checked: one that fails its checksum or holds another count
 * or kind of values is logged once and refused with CorruptDataError.
 */
export function blockRun(c: PgContext, tenant: string, type: MetricType, id: string, b: StoredBlock): Run {
  try {
    const d: DecodedBlock = isSmallBlock(b.body) ? decodeSmallBlock(b.body) : decodePoints(b.body);
    if (d.ts.length !== b.n) corrupt(c, tenant, type, id, b, `the block holds ${d.ts.length} points, the index says ${b.n}`);
    if (isNumeric(type) ? !d.nums : !d.strs) corrupt(c, tenant, type, id, b, "the block holds values of another kind");
    return { ts: d.ts, nums: d.nums, strs: d.strs, tags: d.tags };
  } catch (e) {
    if (e instanceof PointCodecError || e instanceof RangeError || e instanceof TypeError) corrupt(c, tenant, type, id, b, e.message);
    throw e;
  }
}

/** The series' points in [start, end), ascending, expired ones left out; undefined when the series does not exist. */
export async function readRun(c: PgContext, tenant: string, type: MetricType, id: string, start: number, end: number): Promise<Run | undefined> {
  const now = c.now();
  // Its chunks that may hold points of the range in seal order (a chunk spans at most a UTC
  // day), then its blocks of the range in write order: every block left is newer than every
  // chunk (it was not committed when they were sealed).
  const rows = await c.rows<ReadRow>(
    `WITH s AS (SELECT part, sid FROM metric_series WHERE tenant = ? AND type = ? AND metric = ?)
     SELECT 0 AS kind, NULL::bigint AS seq, NULL::int AS n, NULL::bytea AS body FROM s
     UNION ALL
     SELECT 1, c.cid, c.n, c.body FROM s JOIN metric_chunks c ON c.sid = s.sid
       WHERE c.start_ts >= ? AND c.start_ts < ? AND c.end_ts >= ? AND c.expires_at > ?
     UNION ALL
     SELECT 2, b.bid, b.n, b.body FROM s JOIN metric_blocks b ON b.part = s.part AND b.sid = s.sid
       WHERE b.start_ts < ? AND b.end_ts >= ? AND b.expires_at > ?
     ORDER BY kind, seq`,
    [tenant, type, id, start - DAY_MS, end, start, now, end, start, now],
  );
  if (rows.length === 0) return undefined;
  const numeric = isNumeric(type);
  if (end <= start) return emptyRun(numeric);
  const runs: Run[] = [];
  for (const r of rows) {
    if (r.kind === 0) continue;
    const b: StoredBlock = { kind: r.kind === 1 ? "chunk" : "block", seq: Number(r.seq), n: r.n!, body: r.body! };
    runs.push(sliceRun(blockRun(c, tenant, type, id, b), start, end));
  }
  return mergeRuns(runs, numeric);
}
