import { decodePoints, PointCodecError } from "../../../../src/codec/index.ts";
import { AVAILABILITY_CODE, type Availability, DAY_MS, type MetricType, type MetricWrite, type Tags } from "../../../../src/metrics/model.ts";
import { CorruptDataError } from "../../../../src/sqlite/corrupt-data.ts";
import { emptyRun, mergeRuns, type Run, sliceRun } from "../run.ts";
import { type PgContext, numArray, textArray } from "./context.ts";
import { insertTenantRow } from "./definitions.ts";

/**
 * Points of the PostgreSQL metrics store: a write commits its points as rows of metric_points
 * before it resolves, so any collector reads them at once; a read merges the series' sealed
 * chunks with its unsealed rows in one statement (one snapshot: a seal committing meanwhile
 * can neither hide a point nor show it twice).
 */

const isNumeric = (t: MetricType) => t !== "string";

interface Flat {
  type: string[];
  metric: string[];
  ts: number[];
  num: number[];
  str: (string | null)[];
  tags: (string | null)[];
}

/** One row per (type, metric, timestamp), the last written winning, sorted (fixed lock order). */
function flatten(writes: MetricWrite[]): Flat {
  const last = new Map<string, { type: MetricType; id: string; ts: number; value: number | string; tags?: Tags }>();
  for (const w of writes) {
    for (const p of w.points) last.set(`${w.type}\u0000${w.id}\u0000${p.timestamp}`, { type: w.type, id: w.id, ts: p.timestamp, value: p.value, tags: p.tags });
  }
  const rows = [...last.values()].sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : a.ts - b.ts));
  const f: Flat = { type: [], metric: [], ts: [], num: [], str: [], tags: [] };
  for (const r of rows) {
    f.type.push(r.type);
    f.metric.push(r.id);
    f.ts.push(r.ts);
    const str = r.type === "string";
    f.num.push(str ? Number.NaN : r.type === "availability" ? AVAILABILITY_CODE[r.value as Availability] : (r.value as number));
    f.str.push(str ? (r.value as string) : null);
    f.tags.push(r.tags && Object.keys(r.tags).length ? JSON.stringify(r.tags) : null);
  }
  return f;
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
  const f = flatten(writes);
  if (f.ts.length === 0) return;
  const series = new Map<string, [string, string]>();
  for (let i = 0; i < f.ts.length; i++) series.set(`${f.type[i]}\u0000${f.metric[i]}`, [f.type[i]!, f.metric[i]!]);
  const sTypes = textArray([...series.values()].map((x) => x[0]));
  const sIds = textArray([...series.values()].map((x) => x[1]));
  for (let attempt = 1; ; attempt++) {
    const now = c.now();
    try {
      await c.tx(async (t) => {
        await insertTenantRow(c, t, tenant);
        // Only missing series are inserted: the common case neither locks nor burns a sid.
        await c.rows(
          `INSERT INTO metric_series (tenant, type, metric)
           SELECT ?, u.type, u.metric FROM unnest(?::text[], ?::text[]) AS u(type, metric)
           WHERE NOT EXISTS (SELECT 1 FROM metric_series s WHERE s.tenant = ? AND s.type = u.type AND s.metric = u.metric)
           ORDER BY u.type, u.metric
           ON CONFLICT (tenant, type, metric) DO NOTHING`,
          [tenant, sTypes, sIds, tenant],
          t,
        );
        await c.rows(
          `INSERT INTO metric_points (sid, ts, num, str, tags, expires_at, written)
           SELECT s.sid, u.ts, u.num, u.str, u.tags,
             ? + coalesce(s.retention, (tn.retentions::jsonb ->> s.type)::bigint, ?) * ${DAY_MS}, ?
           FROM unnest(?::text[], ?::text[], ?::float8[], ?::float8[], ?::text[], ?::text[]) WITH ORDINALITY AS u(type, metric, ts, num, str, tags, o)
           JOIN metric_series s ON s.tenant = ? AND s.type = u.type AND s.metric = u.metric
           LEFT JOIN metric_tenants tn ON tn.id = s.tenant
           ORDER BY u.o
           ON CONFLICT (sid, ts) DO UPDATE SET num = excluded.num, str = excluded.str, tags = excluded.tags,
             expires_at = excluded.expires_at, written = excluded.written`,
          [
            now,
            c.defaultRetentionDays,
            now,
            textArray(f.type),
            textArray(f.metric),
            numArray(f.ts),
            numArray(f.num),
            textArray(f.str),
            textArray(f.tags),
            tenant,
          ],
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
  kind: number;
  cid: string | null;
  n: number | null;
  body: Uint8Array | null;
  ts: number | null;
  num: number | null;
  str: string | null;
  tags: string | null;
}

function corrupt(c: PgContext, tenant: string, type: MetricType, id: string, cid: number, why: string): never {
  if (!c.corruptChunks.has(cid)) {
    c.corruptChunks.add(cid);
    c.log?.error("corrupt chunk in PostgreSQL: reads of its range are refused until it is restored from a backup or the metric is deleted", {
      tenant,
      type,
      metric: id,
      chunk: cid,
      err: why,
    });
  }
  throw new CorruptDataError(
    `Stored data of ${type} metric '${id}' is corrupt (chunk ${cid}: ${why}); reads of this time range fail until it is restored from a backup`,
  );
}

function chunkRun(c: PgContext, tenant: string, type: MetricType, id: string, r: ReadRow): Run {
  const cid = Number(r.cid);
  try {
    const d = decodePoints(r.body!);
    if (d.ts.length !== r.n) corrupt(c, tenant, type, id, cid, `the block holds ${d.ts.length} points, the index says ${r.n}`);
    if (isNumeric(type) ? !d.nums : !d.strs) corrupt(c, tenant, type, id, cid, "the block holds values of another kind");
    return { ts: d.ts, nums: d.nums, strs: d.strs, tags: d.tags };
  } catch (e) {
    if (e instanceof PointCodecError || e instanceof RangeError || e instanceof TypeError) corrupt(c, tenant, type, id, cid, e.message);
    throw e;
  }
}

/** The series' points in [start, end), ascending, expired ones left out; undefined when the series does not exist. */
export async function readRun(c: PgContext, tenant: string, type: MetricType, id: string, start: number, end: number): Promise<Run | undefined> {
  const now = c.now();
  // kind 0: the series exists; 1: its chunks that may hold points of the range, in seal
  // order; 2: its unsealed points of the range. Chunks span at most a UTC day.
  const rows = await c.rows<ReadRow>(
    `WITH s AS (SELECT sid FROM metric_series WHERE tenant = ? AND type = ? AND metric = ?)
     SELECT 0 AS kind, NULL::bigint AS cid, NULL::int AS n, NULL::bytea AS body, NULL::float8 AS ts, NULL::float8 AS num, NULL::text AS str, NULL::text AS tags FROM s
     UNION ALL
     SELECT 1, c.cid, c.n, c.body, NULL, NULL, NULL, NULL FROM s JOIN metric_chunks c ON c.sid = s.sid
       WHERE c.start_ts >= ? AND c.start_ts < ? AND c.end_ts >= ? AND c.expires_at > ?
     UNION ALL
     SELECT 2, NULL, NULL, NULL, p.ts, p.num, p.str, p.tags FROM s JOIN metric_points p ON p.sid = s.sid
       WHERE p.ts >= ? AND p.ts < ? AND p.expires_at > ?
     ORDER BY kind, cid, ts`,
    [tenant, type, id, start - DAY_MS, end, start, now, start, end, now],
  );
  if (rows.length === 0) return undefined;
  const numeric = isNumeric(type);
  if (end <= start) return emptyRun(numeric);
  const runs: Run[] = [];
  const recent: ReadRow[] = [];
  for (const r of rows) {
    if (r.kind === 1) runs.push(sliceRun(chunkRun(c, tenant, type, id, r), start, end));
    else if (r.kind === 2) recent.push(r);
  }
  if (recent.length > 0) {
    const anyTags = recent.some((r) => r.tags !== null);
    runs.push({
      ts: Float64Array.from(recent, (r) => r.ts!),
      nums: numeric ? Float64Array.from(recent, (r) => r.num!) : undefined,
      strs: numeric ? undefined : recent.map((r) => r.str ?? ""),
      tags: anyTags ? recent.map((r) => (r.tags ? (JSON.parse(r.tags) as Tags) : undefined)) : undefined,
    });
  }
  return mergeRuns(runs, numeric);
}
