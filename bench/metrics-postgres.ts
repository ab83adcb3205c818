#!/usr/bin/env bun
/**
 * The metrics store on SQLite and on PostgreSQL, in process (no HTTP): WRITES writes of SERIES
 * gauges × 10 points each (one write per agent batch), then reads of one series' last hour
 * before and after sealing, the seal itself, and the sealed bytes per point. PostgreSQL: a
 * database of its own on the server of TEST_POSTGRES_URL (default: local, trust auth),
 * created and dropped here. Env: SERIES (default 500), WRITES (default 60), PER_WRITE (points
 * per series and write, default 10). SKIP_SQLITE=1 runs PostgreSQL alone; BLOCKS=codec,raw and
 * REPEAT=n compare small blocks stored raw and as codec blocks in one run.
 */
import { SQL } from "bun";
import { PostgresMetricsStore } from "../collector/store/metrics/postgres/store.ts";
import { openSqliteMetricsStore } from "../collector/store/metrics/sqlite/store.ts";
import type { MetricsStore } from "../collector/store/metrics/types.ts";
import { METRICS_PG } from "../collector/store/metrics/postgres/schema.ts";
import { openPostgres } from "../src/postgres/connect.ts";
import { migratePostgres } from "../src/postgres/migrations.ts";
import { fmt, folderBytes, latency, ownCpu, postgresServerCpu, row, tempDir } from "./_lib.ts";


const SERIES = Number(process.env.SERIES ?? 500);
const WRITES = Number(process.env.WRITES ?? 60);
const PER_WRITE = Number(process.env.PER_WRITE ?? 10);
const T0 = Date.now() - WRITES * PER_WRITE * 10_000;

async function load(label: string, s: MetricsStore, seal: () => Promise<unknown>, bytes: () => Promise<number>) {
  const a = performance.now();
  const cpu0 = [ownCpu(), postgresServerCpu()];
  for (let w = 0; w < WRITES; w++) {
    const base = T0 + w * PER_WRITE * 10_000;
    await s.write(
      "bench",
      Array.from({ length: SERIES }, (_, k) => ({
        type: "gauge" as const,
        id: `s${k}`,
        points: Array.from({ length: PER_WRITE }, (_, i) => ({ timestamp: base + i * 10_000, value: Math.round(50 + 20 * Math.sin((w * PER_WRITE + i + k) / 30)) / 100 })),
      })),
    );
  }
  const secs = (performance.now() - a) / 1000;
  const points = SERIES * WRITES * PER_WRITE;
  row(`${label}: write ${fmt(points)} points (${SERIES} per write × ${PER_WRITE})`, `${fmt(points / secs)} points/s`);
  const m = points / 1e6;
  row(`${label}: write CPU-s per M points (this process / postgres)`, `${fmt((ownCpu() - cpu0[0]!) / m, 2)} / ${fmt((postgresServerCpu() - cpu0[1]!) / m, 2)}`);
  const range = { start: T0 + (WRITES * PER_WRITE - 360) * 10_000, end: Number.MAX_SAFE_INTEGER, order: "asc" as const };
  const before = await latency(() => s.readRaw("bench", "gauge", "s7", range), 50);
  row(`${label}: read 1 h of one series, unsealed (p50 / p99)`, `${fmt(before.p50, 2)} / ${fmt(before.p99, 2)} ms`);
  const b = performance.now();
  const cpu1 = [ownCpu(), postgresServerCpu()];
  await seal();
  row(`${label}: seal everything`, `${fmt(performance.now() - b)} ms`);
  row(`${label}: seal CPU-s per M points (this process / postgres)`, `${fmt((ownCpu() - cpu1[0]!) / m, 2)} / ${fmt((postgresServerCpu() - cpu1[1]!) / m, 2)}`);
  const after = await latency(() => s.readRaw("bench", "gauge", "s7", range), 50);
  row(`${label}: read 1 h of one series, sealed (p50 / p99)`, `${fmt(after.p50, 2)} / ${fmt(after.p99, 2)} ms`);
  row(`${label}: stored bytes per point after sealing`, fmt((await bytes()) / points, 2));
}

const dir = tempDir("outpost-bench-metrics-");
if (!process.env.SKIP_SQLITE) try {
  const lite = await openSqliteMetricsStore({ dataDir: dir.path, synchronous: "NORMAL", maintenanceIntervalMs: 3_600_000 });
  await load("SQLite", lite, async () => lite.flushDue(true), async () => {
    await lite.close();
    return folderBytes(dir.path);
  });
} finally {
  dir.remove();
}

/**
 * PostgreSQL, once per variant of BLOCKS (comma-separated, default "raw"): "raw" stores small
 * numeric blocks raw (the store's default), "codec" as point-codec blocks, so that both are
 * measured in one run (alternating, REPEAT times each).
 */
const ADMIN_URL = process.env.TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const variants = (process.env.BLOCKS ?? "raw").split(",");
for (let r = 0; r < Number(process.env.REPEAT ?? 1); r++) {
  for (const v of variants) await postgresRun(v === "codec" ? "PostgreSQL, codec blocks" : "PostgreSQL", v !== "codec");
}

async function postgresRun(label: string, smallRawBlocks: boolean): Promise<void> {
  const admin = new SQL(ADMIN_URL, { max: 1 });
  const name = `outpost_bench_${crypto.randomUUID().replace(/-/g, "").slice(0, 12)}`;
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const u = new URL(ADMIN_URL);
  u.pathname = `/${name}`;
  const sql = openPostgres(u.toString());
  try {
    await migratePostgres(sql, METRICS_PG);
    const pg = new PostgresMetricsStore({ sql, maintenanceIntervalMs: 3_600_000, smallRawBlocks });
    await pg.open();
    await load(label, pg, () => pg.seal(true), async () => {
      const [r] = await sql.unsafe("SELECT pg_total_relation_size('metric_chunks') AS b");
      return Number(r.b);
    });
    await pg.close();
  } finally {
    await sql.close({ timeout: 1 });
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.close();
  }
}
