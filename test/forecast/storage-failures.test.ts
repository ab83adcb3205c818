import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ForecastingService } from "../../collector/forecast/service.ts";
import { PostgresForecastStore } from "../../collector/store/forecast/postgres.ts";
import { SqliteForecastStore } from "../../collector/store/forecast/sqlite.ts";
import type { ForecastStore } from "../../collector/store/forecast/types.ts";
import { createLogger } from "../../src/log/logger.ts";
import { failStatements } from "../helpers/full-disk.ts";
import { failPostgresStatements, fileTestDatabase } from "../helpers/postgres.ts";

const log = createLogger("silent");
const cleanups: (() => void | Promise<void>)[] = [];
const pg = fileTestDatabase({
  truncate: ["forecast_subscriptions"],
  async cleanup() {
    for (const c of cleanups.splice(0).reverse()) await c();
  },
});

type Op = "UPDATE" | "DELETE";
/** A store on one engine, and how one kind of statement on its table is made to fail. */
const backends: { name: string; open(dir: string): ForecastStore; fail(dir: string, op: Op): Promise<() => void | Promise<void>> }[] = [
  {
    name: "SQLite",
    open: (dir) => new SqliteForecastStore({ dataDir: dir, log }),
    fail: async (dir, op) => failStatements(join(dir, "forecast.db"), "forecast_subscriptions", op),
  },
  {
    name: "PostgreSQL",
    open: () => new PostgresForecastStore({ sql: pg.sql, log }),
    fail: (_dir, op) => failPostgresStatements(pg.sql, "forecast_subscriptions", op),
  },
];

const pts = (n: number) => Array.from({ length: n }, (_, i) => ({ timestamp: 1000 * (i + 1), value: i }));

describe.each(backends)("forecasting on $name when a save fails", (backend) => {
  async function setup() {
    const dir = mkdtempSync(join(tmpdir(), "outpost-forecast-fail-"));
    const store = backend.open(dir);
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    cleanups.push(() => store.close());
    const svc = new ForecastingService({ store, log });
    await svc.open();
    const reopen = async () => {
      const again = new ForecastingService({ store, log });
      await again.open();
      return again;
    };
    return { fail: (op: Op) => backend.fail(dir, op), svc, reopen };
  }

  it("puts a subscription back as it was when saving a change fails, so memory matches the store", async () => {
    const { fail, svc, reopen } = await setup();
    await svc.subscribe("t", { metricId: "m", collectionInterval: 30 });
    await svc.learn("t", "m", pts(5));
    const before = structuredClone(svc.get("t", "m"));
    const release = await fail("UPDATE");
    await expect(svc.update("t", "m", { collectionInterval: 60, windowSize: 40 })).rejects.toThrow(/injected failure/);
    await expect(svc.learn("t", "m", [{ timestamp: 10_000, value: 9 }])).rejects.toThrow(/injected failure/);
    expect(svc.get("t", "m")).toEqual(before);
    await release();
    const stored = (await reopen()).get("t", "m");
    expect(stored.collectionInterval).toBe(30);
    // As the store keeps it: JSON.
    expect(stored.forecaster).toEqual(JSON.parse(JSON.stringify(before.forecaster)));
  });

  it("keeps a subscription whose delete failed", async () => {
    const { fail, svc } = await setup();
    await svc.subscribe("t", { metricId: "m" });
    const release = await fail("DELETE");
    await expect(svc.unsubscribe("t", "m")).rejects.toThrow(/injected failure/);
    expect(svc.list("t").map((r) => r.metricId)).toEqual(["m"]);
    await release();
    await svc.unsubscribe("t", "m");
    expect(svc.list("t")).toEqual([]);
  });
});
