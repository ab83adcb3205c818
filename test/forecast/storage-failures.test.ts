import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ForecastingService } from "../../collector/forecast/service.ts";
import { SqliteForecastStore } from "../../collector/store/forecast/sqlite.ts";
import { createLogger } from "../../src/log/logger.ts";
import { failStatements } from "../helpers/full-disk.ts";

const log = createLogger("silent");
const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup() {
  const dir = mkdtempSync(join(tmpdir(), "outpost-forecast-fail-"));
  const store = new SqliteForecastStore({ dataDir: dir, log });
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  cleanups.push(() => store.close());
  const svc = new ForecastingService({ store, log });
  await svc.open();
  return { dir, svc, reopen: async () => {
    const again = new ForecastingService({ store, log });
    await again.open();
    return again;
  } };
}

const pts = (n: number) => Array.from({ length: n }, (_, i) => ({ timestamp: 1000 * (i + 1), value: i }));

describe("forecasting when a save fails", () => {
  it("puts a subscription back as it was when saving a change fails, so memory matches the store", async () => {
    const { dir, svc, reopen } = await setup();
    await svc.subscribe("t", { metricId: "m", collectionInterval: 30 });
    await svc.learn("t", "m", pts(5));
    const before = structuredClone(svc.get("t", "m"));
    const release = failStatements(join(dir, "forecast.db"), "forecast_subscriptions", "UPDATE");
    await expect(svc.update("t", "m", { collectionInterval: 60, windowSize: 40 })).rejects.toThrow(/injected failure/);
    await expect(svc.learn("t", "m", [{ timestamp: 10_000, value: 9 }])).rejects.toThrow(/injected failure/);
    expect(svc.get("t", "m")).toEqual(before);
    release();
    const stored = (await reopen()).get("t", "m");
    expect(stored.collectionInterval).toBe(30);
    // As the store keeps it: JSON.
    expect(stored.forecaster).toEqual(JSON.parse(JSON.stringify(before.forecaster)));
  });

  it("keeps a subscription whose delete failed", async () => {
    const { dir, svc } = await setup();
    await svc.subscribe("t", { metricId: "m" });
    const release = failStatements(join(dir, "forecast.db"), "forecast_subscriptions", "DELETE");
    await expect(svc.unsubscribe("t", "m")).rejects.toThrow(/injected failure/);
    expect(svc.list("t").map((r) => r.metricId)).toEqual(["m"]);
    release();
    await svc.unsubscribe("t", "m");
    expect(svc.list("t")).toEqual([]);
  });
});
