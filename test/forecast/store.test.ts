import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SqliteForecastStore } from "../../collector/store/forecast/sqlite.ts";
import type { SubscriptionRecord } from "../../collector/store/forecast/types.ts";
import { learn, newForecaster } from "../../src/forecast/forecaster.ts";
import { createLogger } from "../../src/log/logger.ts";

const log = createLogger("silent");
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function dir() {
  const d = mkdtempSync(join(tmpdir(), "outpost-fstore-"));
  dirs.push(d);
  return d;
}
const record = (tenant: string, metricId: string): SubscriptionRecord => ({
  tenant,
  metricId,
  collectionInterval: 30,
  forecaster: newForecaster({ windowSize: 20 }),
  createdAt: 1,
});

describe("SQLite forecast store", () => {
  it("inserts once per tenant and metric, saves, lists and deletes", async () => {
    const d = dir();
    const s = new SqliteForecastStore({ dataDir: d, log });
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

    const again = new SqliteForecastStore({ dataDir: d, log });
    const all = await again.all();
    expect(all.map((r) => `${r.tenant}/${r.metricId}`)).toEqual(["t1/m", "t2/m"]);
    expect(all[0]).toEqual(a);
    expect(await again.delete("t1", "m")).toBe(true);
    expect(await again.delete("t1", "m")).toBe(false);
    expect((await again.all()).map((r) => r.tenant)).toEqual(["t2"]);
    await again.close();
  });

  it("restarts a forecaster whose stored state cannot be read, keeping the subscription", async () => {
    const d = dir();
    const s = new SqliteForecastStore({ dataDir: d, log });
    await s.insert(record("t", "broken"));
    await s.insert(record("t", "future"));
    await s.close();
    const db = new Database(join(d, "forecast.db"));
    db.run("UPDATE forecast_subscriptions SET state = '{not json' WHERE metric_id = 'broken'");
    db.run("UPDATE forecast_subscriptions SET state_version = 99 WHERE metric_id = 'future'");
    db.close();

    const again = new SqliteForecastStore({ dataDir: d, log });
    const all = await again.all();
    expect(all.map((r) => r.metricId)).toEqual(["broken", "future"]);
    for (const r of all) {
      expect(r.forecaster).toEqual(newForecaster());
      expect(r.collectionInterval).toBe(30);
    }
    await again.close();
  });
});
