/**
 * The schema step that brings rollup tiers, from the databases of the version before it
 * (metrics.db schema 3 on SQLite, the metrics tables' schema 4 on PostgreSQL): the step is
 * instant, the chunks already stored are rolled up by the background task afterwards, and the
 * tiers then answer as their raw points do. (Release 0.1.0's databases: test/collector/upgrade.test.ts.)
 */
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readNumericStats } from "../../../src/metrics/queries.ts";
import { Resolutions } from "../../../src/metrics/rollup/tier-stats.ts";
import { METRICS_PG } from "../../../collector/store/metrics/postgres/schema.ts";
import { PostgresMetricsStore } from "../../../collector/store/metrics/postgres/store.ts";
import { encodeChunkBlock } from "../../../collector/store/metrics/sqlite/chunks.ts";
import { METRICS_DB } from "../../../collector/store/metrics/sqlite/schema.ts";
import { openSqliteMetricsStore } from "../../../collector/store/metrics/sqlite/store.ts";
import type { MetricsStore } from "../../../collector/store/metrics/types.ts";
import { numericBucketStats } from "../../../src/metrics/bucket-stats.ts";
import { DAY_MS } from "../../../src/metrics/model.ts";
import { DEFAULT_ROLLUP_TIERS, parseRollupTiers } from "../../../src/metrics/rollup/tiers.ts";
import { migratePostgres, pgSchemaVersion } from "../../../src/postgres/migrations.ts";
import { migrate, schemaVersion } from "../../../src/sqlite/migrations.ts";
import { createTestDatabase, type TestDatabase } from "../../helpers/postgres.ts";

const TIERS = parseRollupTiers(DEFAULT_ROLLUP_TIERS);
const T0 = Math.floor(Date.now() / DAY_MS) * DAY_MS - 20 * DAY_MS;
const HOUR = 3_600_000;
/** Two days of a gauge, a point a minute. */
const points = Array.from({ length: 2 * 1440 }, (_, i) => ({ timestamp: T0 + i * 60_000, value: ((i * 37) % 101) / 4 }));

/** Hourly stats through the tiers equal to the raw points' (min, max, samples, sum), and read from the hourly tier. */
async function expectTiersAnswer(store: MetricsStore): Promise<void> {
  const buckets = { start: T0, step: HOUR, count: 48 };
  const seen = new Resolutions();
  const got = await readNumericStats(store, "t", "gauge", "g", { buckets, seen });
  expect(seen.header()).toBe("1h");
  const raw = await store.readSeries("t", "gauge", "g", T0, T0 + 2 * DAY_MS);
  const want = numericBucketStats({ ts: raw!.ts, values: raw!.values }, buckets, { feedOrder: "desc" });
  got.forEach((g, i) => {
    const w = want[i]!;
    if (g.empty || w.empty) throw new Error(`bucket ${i} is empty`);
    expect([g.min, g.max, g.samples]).toEqual([w.min, w.max, w.samples]);
    expect(g.sum).toBeCloseTo(w.sum, 9);
  });
}

describe("metrics.db schema 3 → 4 (SQLite)", () => {
  const dir = mkdtempSync(join(tmpdir(), "outpost-rollup-upgrade-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("adds the tiers' tables at once, then rolls up the chunks stored before", async () => {
    // A database of schema 3 as the previous version left it: chunks as point blocks.
    const db = new Database(join(dir, "metrics.db"), { create: true });
    migrate(db, { name: "metrics.db", migrations: METRICS_DB.migrations.slice(0, 3) });
    db.query("INSERT INTO tenants (id, retentions, created) VALUES ('t', NULL, 0)").run();
    db.query("INSERT INTO series (sid, tenant, type, metric, min_ts, max_ts, flushed_seq) VALUES (1, 't', 'gauge', 'g', ?, ?, 0)").run(T0, points.at(-1)!.timestamp);
    const expires = Date.now() + 7 * DAY_MS;
    for (let k = 0; k < points.length; k += 1440) {
      const part = points.slice(k, k + 1440);
      const block = encodeChunkBlock({ ts: Float64Array.from(part, (p) => p.timestamp), nums: Float64Array.from(part, (p) => p.value) });
      db.query("INSERT INTO chunks (sid, start_ts, end_ts, n, ts, vals, tags, expires_at, format, body) VALUES (1, ?, ?, ?, X'', X'', NULL, ?, 1, ?)").run(part[0]!.timestamp, part.at(-1)!.timestamp, part.length, expires, block);
    }
    expect(schemaVersion(db)).toBe(3);
    db.close();

    const logs: string[] = [];
    const log = { info: (m: string) => logs.push(m), warn: () => undefined, error: () => undefined, debug: () => undefined, child: () => log } as never;
    const s = await openSqliteMetricsStore({ dataDir: dir, synchronous: "NORMAL", maintenanceIntervalMs: 3_600_000, rollupTiers: TIERS, log });
    try {
      expect(logs).toContain("upgraded metrics.db to schema 4");
      expect(s.rollups!.stats().pendingChunks).toBe(2);
      // Until the roller has run, everything is read raw.
      const before = new Resolutions();
      await readNumericStats(s, "t", "gauge", "g", { buckets: { start: T0, step: HOUR, count: 48 }, seen: before });
      expect(before.header()).toBe("raw");
      s.rollUp();
      expect(s.rollups!.stats()).toMatchObject({ pendingChunks: 0, chunksRolled: 2 });
      await expectTiersAnswer(s);
    } finally {
      await s.close();
    }
    const after = new Database(join(dir, "metrics.db"), { readonly: true });
    expect(schemaVersion(after)).toBe(5);
    after.close();
  });
});

describe("metrics tables' schema 4 → 5 (PostgreSQL)", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.drop());

  it("adds the tiers' tables and queue, then the roller queues and rolls up the chunks stored before", async () => {
    await migratePostgres(db.sql, { name: "metrics", migrations: METRICS_PG.migrations.slice(0, 4) });
    // The previous version's store wrote and sealed these (it knows no tiers).
    const old = new PostgresMetricsStore({ sql: db.sql, maintenanceIntervalMs: 3_600_000 });
    await old.open();
    await old.write("t", [{ type: "gauge", id: "g", points }]);
    expect(await old.seal(true)).toBe(1);
    await old.close();
    expect(await pgSchemaVersion(db.sql, "metrics")).toBe(4);

    expect(await migratePostgres(db.sql, METRICS_PG)).toEqual({ from: 4, to: 5 });
    const s = new PostgresMetricsStore({ sql: db.sql, maintenanceIntervalMs: 3_600_000, rollupTiers: TIERS });
    await s.open();
    try {
      const before = new Resolutions();
      await readNumericStats(s, "t", "gauge", "g", { buckets: { start: T0, step: HOUR, count: 48 }, seen: before });
      expect(before.header()).toBe("raw");
      await s.rollUp();
      expect(s.rollups!.stats()).toMatchObject({ pendingChunks: 0 });
      expect(Number((await db.sql.unsafe("SELECT count(*) AS n FROM metric_rollup_queue"))[0].n)).toBe(0);
      await expectTiersAnswer(s);
    } finally {
      await s.close();
    }
  });
});
