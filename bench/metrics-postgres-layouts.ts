#!/usr/bin/env bun
/**
 * Three ways to commit a write batch of points to PostgreSQL, on one database, one after the
 * other in rounds (so that load from other work spreads over all three):
 *   rows:   one row per point, `INSERT … SELECT FROM unnest(…) ON CONFLICT (sid, ts) DO UPDATE`
 *           (the metrics store's layout before metric_blocks; schema version 1);
 *   copy:   one row per point, COPY into a temporary staging table, then the same upsert from it;
 *   blocks: one row per series, its points as one point-codec block (metric_blocks, now).
 * Prints PostgreSQL CPU-seconds (every `postgres` process) and the writer's per million points,
 * and points/s. Sealing is not included (bench/metrics-postgres.ts measures it). Env: SERIES
 * (200), PER_SERIES (points per series and batch, 25), BATCHES (per round, 40), ROUNDS (3).
 */
import { SQL } from "bun";
import { encodePoints } from "../src/codec/index.ts";
import { fmt, ownCpu, postgresServerCpu, row } from "./_lib.ts";

const SERIES = Number(process.env.SERIES ?? 200);
const PER = Number(process.env.PER_SERIES ?? 25);
const BATCHES = Number(process.env.BATCHES ?? 40);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const ADMIN_URL = process.env.TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";


const DDL = [
  "CREATE TABLE metric_series (sid BIGSERIAL PRIMARY KEY, tenant TEXT NOT NULL, type TEXT NOT NULL, metric TEXT NOT NULL, retention BIGINT, UNIQUE (tenant, type, metric))",
  `CREATE TABLE metric_points (sid BIGINT NOT NULL REFERENCES metric_series (sid) ON DELETE CASCADE, ts DOUBLE PRECISION NOT NULL,
     num DOUBLE PRECISION, str TEXT, tags TEXT, expires_at BIGINT NOT NULL, written BIGINT NOT NULL, PRIMARY KEY (sid, ts))`,
  `CREATE TABLE metric_blocks (sid BIGINT NOT NULL, bid BIGSERIAL, start_ts DOUBLE PRECISION NOT NULL, end_ts DOUBLE PRECISION NOT NULL,
     n INTEGER NOT NULL, written BIGINT NOT NULL, expires_at BIGINT NOT NULL, body BYTEA NOT NULL, PRIMARY KEY (sid, bid))`,
  "ALTER TABLE metric_blocks ALTER COLUMN body SET STORAGE EXTERNAL",
];

const ids = Array.from({ length: SERIES }, (_, k) => `s${k}`);
const arr = (a: readonly (string | number)[]) => `{${a.join(",")}}`;
let t0 = Date.now() - 10 * 86_400_000;

/** The points of the next batch: PER points of each series. */
function nextBatch(): { ts: number[]; values: number[][] } {
  const ts = Array.from({ length: PER }, (_, i) => t0 + i * 10_000);
  t0 += PER * 10_000;
  return { ts, values: ids.map((_, k) => ts.map((t, i) => Math.round(50 + 20 * Math.sin((t / 10_000 + i + k) / 30)) / 100)) };
}

const UPSERT = `ON CONFLICT (sid, ts) DO UPDATE SET num = excluded.num, str = excluded.str, tags = excluded.tags, expires_at = excluded.expires_at, written = excluded.written`;

const ways: Record<string, (sql: SQL) => Promise<void>> = {
  async rows(sql) {
    const b = nextBatch();
    const m: string[] = [];
    const ts: number[] = [];
    const v: number[] = [];
    for (let k = 0; k < ids.length; k++) {
      for (let i = 0; i < b.ts.length; i++) {
        m.push(ids[k]!);
        ts.push(b.ts[i]!);
        v.push(b.values[k]![i]!);
      }
    }
    await sql.begin((tx) =>
      tx.unsafe(
        `INSERT INTO metric_points (sid, ts, num, str, tags, expires_at, written)
         SELECT s.sid, u.ts, u.num, NULL, NULL, $1, $1 FROM unnest($2::text[], $3::float8[], $4::float8[]) WITH ORDINALITY AS u(metric, ts, num, o)
         JOIN metric_series s ON s.tenant = 't' AND s.type = 'gauge' AND s.metric = u.metric ORDER BY u.o ${UPSERT}`,
        [Date.now(), arr(m), arr(ts), arr(v)],
      ),
    );
  },
  async copy(sql) {
    const b = nextBatch();
    let text = "";
    for (let k = 0; k < ids.length; k++) for (let i = 0; i < b.ts.length; i++) text += `${ids[k]}\t${b.ts[i]}\t${b.values[k]![i]}\n`;
    await sql.begin(async (tx) => {
      await tx.unsafe("CREATE TEMP TABLE IF NOT EXISTS staging (metric TEXT, ts DOUBLE PRECISION, num DOUBLE PRECISION) ON COMMIT DELETE ROWS");
      const q = tx.unsafe("COPY staging FROM STDIN");
      const w = q.writable().getWriter();
      await w.write(new TextEncoder().encode(text));
      await w.close();
      await q;
      await tx.unsafe(
        `INSERT INTO metric_points (sid, ts, num, str, tags, expires_at, written)
         SELECT s.sid, u.ts, u.num, NULL, NULL, $1, $1 FROM staging u JOIN metric_series s ON s.tenant = 't' AND s.type = 'gauge' AND s.metric = u.metric
         ORDER BY s.sid, u.ts ${UPSERT}`,
        [Date.now()],
      );
    });
  },
  async blocks(sql) {
    const b = nextBatch();
    const ts = Float64Array.from(b.ts);
    const bodies = ids.map((_, k) => {
      const e = encodePoints({ ts, nums: Float64Array.from(b.values[k]!) });
      return `"\\\\x${Buffer.from(e.buffer, e.byteOffset, e.byteLength).toString("hex")}"`;
    });
    await sql.begin((tx) =>
      tx.unsafe(
        `INSERT INTO metric_blocks (sid, start_ts, end_ts, n, written, expires_at, body)
         SELECT s.sid, $2, $3, $4, $1, $1, u.body FROM unnest($5::text[], $6::bytea[]) WITH ORDINALITY AS u(metric, body, o)
         JOIN metric_series s ON s.tenant = 't' AND s.type = 'gauge' AND s.metric = u.metric ORDER BY u.o`,
        [Date.now(), ts[0]!, ts.at(-1)!, PER, arr(ids), `{${bodies.join(",")}}`],
      ),
    );
  },
};

const admin = new SQL(ADMIN_URL, { max: 1 });
const name = `outpost_bench_${crypto.randomUUID().replace(/-/g, "").slice(0, 12)}`;
await admin.unsafe(`CREATE DATABASE ${name}`);
const u = new URL(ADMIN_URL);
u.pathname = `/${name}`;
const sql = new SQL(u.toString(), { max: 1 });
try {
  for (const d of DDL) await sql.unsafe(d);
  await sql.unsafe(`INSERT INTO metric_series (tenant, type, metric) SELECT 't', 'gauge', unnest($1::text[])`, [arr(ids)]);
  const totals: Record<string, { pg: number; self: number; secs: number; points: number }> = {};
  for (let r = 0; r < ROUNDS; r++) {
    for (const [way, write] of Object.entries(ways)) {
      const t = (totals[way] ??= { pg: 0, self: 0, secs: 0, points: 0 });
      const [pg0, self0, a] = [postgresServerCpu(), ownCpu(), performance.now()];
      for (let i = 0; i < BATCHES; i++) await write(sql);
      t.secs += (performance.now() - a) / 1000;
      t.pg += postgresServerCpu() - pg0;
      t.self += ownCpu() - self0;
      t.points += BATCHES * SERIES * PER;
    }
  }
  console.log(`write batches of ${SERIES} series × ${PER} points, ${ROUNDS} rounds × ${BATCHES} batches per way, one connection`);
  for (const [way, t] of Object.entries(totals)) {
    const m = t.points / 1e6;
    row(`${way}: points/s; CPU-s per M points, PostgreSQL / writer`, `${fmt(t.points / t.secs)}; ${fmt(t.pg / m, 2)} / ${fmt(t.self / m, 2)}`);
  }
} finally {
  await sql.close();
  await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.close();
}
