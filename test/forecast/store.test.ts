import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PostgresForecastStore } from "../../collector/store/forecast/postgres.ts";
import { SqliteForecastStore } from "../../collector/store/forecast/sqlite.ts";
import type { ForecastStore, SubscriptionRecord } from "../../collector/store/forecast/types.ts";
import { learn, newForecaster } from "../../src/forecast/forecaster.ts";
import { createLogger } from "../../src/log/logger.ts";
import { fileTestDatabase } from "../helpers/postgres.ts";

const log = createLogger("silent");
const dirs: string[] = [];
const pg = fileTestDatabase({
  truncate: ["forecast_subscriptions"],
  async cleanup() {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  },
});

/** One place (a data folder, or the test database) that stores are opened on and reopened. */
interface Place {
  open(): ForecastStore;
  /** Sets a column of a stored row behind the store's back. */
  tamper(metricId: string, column: "state" | "state_version", value: string | number): Promise<void>;
}

const backends: { name: string; place(): Place }[] = [
  {
    name: "SQLite",
    place() {
      const d = mkdtempSync(join(tmpdir(), "outpost-fstore-"));
      dirs.push(d);
      return {
        open: () => new SqliteForecastStore({ dataDir: d, log }),
        async tamper(metricId, column, value) {
          const db = new Database(join(d, "forecast.db"));
          db.query(`UPDATE forecast_subscriptions SET ${column} = ? WHERE metric_id = ?`).run(value, metricId);
          db.close();
        },
      };
    },
  },
  {
    name: "PostgreSQL",
    place: () => ({
      open: () => new PostgresForecastStore({ sql: pg.sql, log }),
      async tamper(metricId, column, value) {
        await pg.sql.unsafe(`UPDATE forecast_subscriptions SET ${column} = $1 WHERE metric_id = $2`, [value, metricId]);
      },
    }),
  },
];

const record = (tenant: string, metricId: string): SubscriptionRecord => ({
  tenant,
  metricId,
  collectionInterval: 30,
  forecaster: newForecaster({ windowSize: 20 }),
  createdAt: 1_700_000_000_123,
});

describe.each(backends)("$name forecast store", ({ place }) => {
  it("inserts once per tenant and metric, saves, lists and deletes", async () => {
    const p = place();
    const s = p.open();
    const a = record("t1", "m");
    expect(await s.insert(a)).toBe(true);
    expect(await s.insert(record("t1", "m"))).toBe(false);
    expect(await s.insert(record("t2", "m"))).toBe(true);
    learn(a.forecaster, [
      { timestamp: 1, value: 1 },
      { timestamp: 2, value: 2 },
    ]);
    await s.save(a);
    await s.close();

    const again = p.open();
    const all = await again.all();
    expect(all.map((r) => `${r.tenant}/${r.metricId}`)).toEqual(["t1/m", "t2/m"]);
    expect(all[0]).toEqual(a);
    expect(await again.delete("t1", "m")).toBe(true);
    expect(await again.delete("t1", "m")).toBe(false);
    expect((await again.all()).map((r) => r.tenant)).toEqual(["t2"]);
    await again.close();
  });

  it("keeps tenants apart: a save or delete of one tenant never touches another's subscription", async () => {
    const s = place().open();
    const mine = record("t1", "shared-id");
    const theirs = record("t2", "shared-id");
    await s.insert(mine);
    await s.insert(theirs);
    learn(mine.forecaster, [{ timestamp: 1, value: 5 }]);
    await s.save(mine);
    expect(await s.delete("t3", "shared-id")).toBe(false);
    const all = await s.all();
    expect(all.find((r) => r.tenant === "t2")).toEqual(theirs);
    expect(all.find((r) => r.tenant === "t1")).toEqual(mine);
    // A subscription without an interval keeps it absent, not 0 or null.
    const noInterval = { ...record("t1", "free"), collectionInterval: undefined };
    await s.insert(noInterval);
    expect((await s.all()).find((r) => r.metricId === "free")?.collectionInterval).toBeUndefined();
    await s.close();
  });

  it("restarts a forecaster whose stored state cannot be read, keeping the subscription", async () => {
    const p = place();
    const s = p.open();
    await s.insert(record("t", "broken"));
    await s.insert(record("t", "future"));
    await s.close();
    await p.tamper("broken", "state", "{not json");
    await p.tamper("future", "state_version", 99);

    const again = p.open();
    const all = await again.all();
    expect(all.map((r) => r.metricId)).toEqual(["broken", "future"]);
    for (const r of all) {
      expect(r.forecaster).toEqual(newForecaster());
      expect(r.collectionInterval).toBe(30);
    }
    await again.close();
  });
});
