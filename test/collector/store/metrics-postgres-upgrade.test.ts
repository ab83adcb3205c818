import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { METRICS_PG } from "../../../collector/store/metrics/postgres/schema.ts";
import { PostgresMetricsStore } from "../../../collector/store/metrics/postgres/store.ts";
import { partitionOf } from "../../../src/partitions.ts";
import { migratePostgres, pgSchemaVersion } from "../../../src/postgres/migrations.ts";
import { createTestDatabase, type TestDatabase } from "../../helpers/postgres.ts";

/**
 * A database of the metrics schema's version 1 (one row a point in metric_points) upgraded to
 * blocks: its unsealed rows are sealed into chunks by the step, and every point reads back.
 */
let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.drop());

const NOW = Date.now();
const DAY = 86_400_000;
const all = { start: 0, end: Number.MAX_SAFE_INTEGER, order: "asc" as const };

describe("metrics schema version 1 → 2 on PostgreSQL", () => {
  it("seals the rows of metric_points into chunks, losing no point and keeping tags, strings and expiries", async () => {
    await migratePostgres(db.sql, { name: "metrics", migrations: [METRICS_PG.migrations[0]!] });
    expect(await pgSchemaVersion(db.sql, "metrics")).toBe(1);
    // Rows as version 1 wrote them: 1,500 gauge points, a string series with tags, an expired row.
    await db.sql.unsafe("INSERT INTO metric_tenants (id, retentions, created) VALUES ('t', NULL, 0)");
    await db.sql.unsafe("INSERT INTO metric_series (tenant, type, metric) VALUES ('t', 'gauge', 'g'), ('t', 'string', 's'), ('t', 'gauge', 'old')");
    const exp = NOW + 7 * DAY;
    await db.sql.unsafe(
      `INSERT INTO metric_points (sid, ts, num, str, tags, expires_at, written)
       SELECT (SELECT sid FROM metric_series WHERE metric = 'g'), $1::float8 + i, i * 0.5, NULL, NULL, $2::bigint + i, $1::bigint FROM generate_series(0, 1499) i`,
      [NOW, exp],
    );
    await db.sql.unsafe(
      `INSERT INTO metric_points (sid, ts, num, str, tags, expires_at, written) VALUES
        ((SELECT sid FROM metric_series WHERE metric = 's'), $1, 'NaN', 'a', '{"k":"v"}', $2, $1),
        ((SELECT sid FROM metric_series WHERE metric = 's'), $1::float8 + 1, 'NaN', 'b', NULL, $2, $1),
        ((SELECT sid FROM metric_series WHERE metric = 'old'), $1, 1, NULL, NULL, $3, $1)`,
      [NOW, exp, NOW - 1],
    );
    expect(await migratePostgres(db.sql, METRICS_PG)).toEqual({ from: 1, to: 5 });
    const [t] = await db.sql.unsafe("SELECT to_regclass('metric_points') AS p, (SELECT sum(n) FROM metric_chunks)::int AS n, (SELECT max(expires_at) FROM metric_chunks WHERE n = 1500)::bigint AS e");
    expect(t.p).toBeNull();
    expect(t.n).toBe(1503);
    // One chunk for the 1,500 points (chunks of 1,024 to 2,047), expiring with the latest of them.
    expect(Number(t.e)).toBe(exp + 1499);

    const s = new PostgresMetricsStore({ sql: db.sql, maintenanceIntervalMs: 3_600_000 });
    await s.open();
    try {
      const g = await s.readRaw("t", "gauge", "g", all);
      expect(g.ts.length).toBe(1500);
      expect(g.ts[0]).toBe(NOW);
      expect(g.values[1499]).toBe(749.5);
      expect(await s.readRaw("t", "string", "s", all)).toEqual({ ts: [NOW, NOW + 1], values: ["a", "b"], tags: [{ k: "v" }, undefined] });
      expect((await s.readRaw("t", "gauge", "old", all)).values).toEqual([]);
      expect(await s.getMetric("t", "gauge", "g")).toMatchObject({ minTimestamp: NOW, maxTimestamp: NOW + 1499 });
      // Writes go on in the new layout and win over the sealed rows.
      await s.write("t", [{ type: "gauge", id: "g", points: [{ timestamp: NOW, value: -1 }] }]);
      expect((await s.readRaw("t", "gauge", "g", { ...all, limit: 2 })).values).toEqual([-1, 0.5]);
      expect(await s.stats()).toEqual({ points: 1, blocks: 1, chunks: 3 });
    } finally {
      await s.close();
    }
  });
});

describe("metrics schema version 2 → 4 on PostgreSQL", () => {
  it("gives every series and block the partition of its tenant, and keeps every point readable and sealable", async () => {
    const d = await createTestDatabase();
    try {
      await migratePostgres(d.sql, { name: "metrics", migrations: METRICS_PG.migrations.slice(0, 2) });
      expect(await pgSchemaVersion(d.sql, "metrics")).toBe(2);
      const tenants = Array.from({ length: 12 }, (_, i) => `tenant-${i}`);
      // Blocks as version 2 wrote them (bodies made by the store itself): one per series, and one whose series is gone.
      const blocks: { tenant: string; body: Uint8Array }[] = [];
      const scratch = await createTestDatabase();
      try {
        await migratePostgres(scratch.sql, METRICS_PG);
        const w = new PostgresMetricsStore({ sql: scratch.sql, maintenanceIntervalMs: 3_600_000 });
        await w.open();
        for (const t of tenants) await w.write(t, [{ type: "gauge", id: "g", points: [{ timestamp: NOW, value: t.length }] }]);
        await w.close();
        for (const r of (await scratch.sql.unsafe("SELECT s.tenant, b.body FROM metric_blocks b JOIN metric_series s USING (sid)")) as { tenant: string; body: Uint8Array }[]) blocks.push(r);
      } finally {
        await scratch.drop();
      }
      for (const t of tenants) {
        await d.sql.unsafe("INSERT INTO metric_tenants (id, retentions, created) VALUES ($1, NULL, 0)", [t]);
        await d.sql.unsafe("INSERT INTO metric_series (tenant, type, metric) VALUES ($1, 'gauge', 'g')", [t]);
      }
      for (const b of blocks) {
        await d.sql.unsafe(
          `INSERT INTO metric_blocks (sid, start_ts, end_ts, n, written, expires_at, body)
           SELECT sid, $2, $2, 1, $2, $3, $4 FROM metric_series WHERE tenant = $1`,
          [b.tenant, NOW, NOW + DAY, b.body],
        );
      }
      await d.sql.unsafe("INSERT INTO metric_blocks (sid, start_ts, end_ts, n, written, expires_at, body) VALUES (999999, $1, $1, 1, $1, $2, $3)", [NOW, NOW + DAY, blocks[0]!.body]);

      expect(await migratePostgres(d.sql, METRICS_PG)).toEqual({ from: 2, to: 5 });
      const series = (await d.sql.unsafe("SELECT tenant, part FROM metric_series")) as { tenant: string; part: number }[];
      expect(series).toHaveLength(12);
      for (const r of series) expect(r.part).toBe(partitionOf(r.tenant, 16));
      expect(new Set(series.map((r) => r.part)).size).toBeGreaterThan(3);
      const [m] = await d.sql.unsafe(
        `SELECT count(*)::int AS n, count(*) FILTER (WHERE b.part = s.part)::int AS same, count(*) FILTER (WHERE s.sid IS NULL AND b.part = 0)::int AS orphans
         FROM metric_blocks b LEFT JOIN metric_series s USING (sid)`,
      );
      expect(m).toEqual({ n: 13, same: 12, orphans: 1 });
      const [pk] = await d.sql.unsafe("SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conname = 'metric_blocks_pkey'");
      expect(pk.def).toBe("PRIMARY KEY (part, sid, bid) INCLUDE (n, written)");
      const [chunkKey] = await d.sql.unsafe("SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conname = 'metric_chunks_pkey'");
      expect(chunkKey.def).toBe("PRIMARY KEY (sid, cid)");

      const s = new PostgresMetricsStore({ sql: d.sql, maintenanceIntervalMs: 3_600_000 });
      await s.open();
      try {
        for (const t of tenants) expect((await s.readRaw(t, "gauge", "g", all)).values).toEqual([t.length]);
        await s.write("tenant-0", [{ type: "gauge", id: "g", points: [{ timestamp: NOW + 1, value: 5 }] }]);
        expect(await s.seal(true)).toBe(12);
        expect(await s.stats()).toEqual({ points: 0, blocks: 0, chunks: 12 });
        expect((await s.readRaw("tenant-0", "gauge", "g", all)).values).toEqual([8, 5]);
      } finally {
        await s.close();
      }
    } finally {
      await d.drop();
    }
  });
});
