import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { METRICS_PG } from "../../../collector/store/metrics/postgres/schema.ts";
import { PostgresMetricsStore } from "../../../collector/store/metrics/postgres/store.ts";
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
    expect(await migratePostgres(db.sql, METRICS_PG)).toEqual({ from: 1, to: 2 });
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
