import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";
import { describe, expect, it } from "vitest";
import { defaultPlugins } from "../../../collector/alerts/actions/registry.ts";
import { AlertingService } from "../../../collector/alerts/service.ts";
import { PostgresAlertsStore } from "../../../collector/store/alerts/postgres.ts";
import { PostgresForecastStore } from "../../../collector/store/forecast/postgres.ts";
import { openPostgresInventoryStore } from "../../../collector/store/inventory/postgres.ts";
import { completeFullTrigger } from "../../../src/alerts/complete.ts";
import { fullTriggerSchema } from "../../../src/alerts/schemas.ts";
import { newForecaster } from "../../../src/forecast/forecaster.ts";
import { CanonicalPath } from "../../../src/inventory/canonical-path.ts";
import { createLogger } from "../../../src/log/logger.ts";
import { storageFailure } from "../../../src/sqlite/storage-failure.ts";
import { StorageHealth } from "../../../src/sqlite/storage-health.ts";
import { body, startTestCollector } from "../../helpers/collector.ts";
import { waitFor } from "../../helpers/ports.ts";
import { fileTestDatabase, PostgresProxy } from "../../helpers/postgres.ts";

/**
 * Issue 13's storage-failure behaviour on PostgreSQL: a server that cannot be reached (cut
 * through a proxy, as a crash or a broken network would) or that is out of disk is a storage
 * failure, never a bug: writes are refused (503/507, nothing half done), the storage health
 * probes until the server takes writes again, and what was held is stored then.
 */
const log = createLogger("silent");
const cleanups: (() => void | Promise<void>)[] = [];
const db = fileTestDatabase({
  truncate: ["triggers", "alerts", "events", "action_definitions", "action_history", "forecast_subscriptions", "inv_entity", "inv_relationship"],
  async cleanup() {
    for (const c of cleanups.splice(0).reverse()) await c();
  },
});

/** A pool that reaches the test database through a proxy the test can cut. */
async function cutablePool() {
  const proxy = await new PostgresProxy().start();
  const sql = new SQL(db.urlVia(proxy.port), { max: 3, connectionTimeout: 2 });
  const health = new StorageHealth({ log, probeIntervalMs: 100 });
  cleanups.push(
    () => proxy.close(),
    () => sql.close({ timeout: 1 }),
    () => health.close(),
  );
  return { proxy, sql, health };
}

const failureOf = (p: Promise<unknown>) => p.then(() => "stored", (e) => storageFailure(e) ?? `not a storage failure: ${(e as Error).message}`);

describe("PostgreSQL stores when the server cannot be reached", () => {
  it("refuse writes as 'unavailable', report it once, and take writes again when the server is back", async () => {
    const { proxy, sql, health } = await cutablePool();
    const alerts = new PostgresAlertsStore({ sql, log, health });
    const forecast = new PostgresForecastStore({ sql, log, health });
    const inventory = openPostgresInventoryStore(sql, { health });
    cleanups.push(() => inventory.close());
    const trig = (id: string) => completeFullTrigger(fullTriggerSchema.parse({ trigger: { id } }), "t");
    await alerts.writeTriggers({ put: [trig("before")] });

    await proxy.cut();
    expect(await failureOf(alerts.writeTriggers({ put: [trig("during")] }))).toBe("unavailable");
    expect(health.failing).toBe("unavailable");
    expect(await failureOf(forecast.insert({ tenant: "t", metricId: "m", forecaster: newForecaster(), createdAt: 1 }))).toBe("unavailable");
    expect(await failureOf(inventory.transaction((tx) => tx.insertEntity("t", { path: CanonicalPath.tenant("t"), type: "t", id: "t" })))).toBe("unavailable");
    // Reads fail the same way (no SQLite file to fall back on): a 503 at the HTTP level, not a 500.
    expect(await failureOf(alerts.triggers("t"))).toBe("unavailable");
    expect(health.refusedWrites).toBe(3);

    await proxy.restore();
    await waitFor("storage health to clear", () => (health.failing === undefined ? true : undefined), 10_000);
    await alerts.writeTriggers({ put: [trig("after")] });
    expect((await alerts.triggers("t")).map((f) => f.trigger.id)).toEqual(["after", "before"]);
    expect(await forecast.insert({ tenant: "t", metricId: "m", forecaster: newForecaster(), createdAt: 1 })).toBe(true);
  });

  it("a full disk on the server is 'full' (SQLSTATE 53100), other server errors are not storage failures", async () => {
    const forecast = new PostgresForecastStore({ sql: db.sql, log });
    // PostgreSQL raises disk_full when it cannot extend a file; a trigger raises the same error here.
    await db.sql.unsafe(`CREATE FUNCTION test_disk_full() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'could not extend file: No space left on device' USING ERRCODE = 'disk_full'; END $$`);
    await db.sql.unsafe("CREATE TRIGGER test_disk_full BEFORE INSERT ON forecast_subscriptions FOR EACH ROW EXECUTE FUNCTION test_disk_full()");
    cleanups.push(async () => {
      await db.sql.unsafe("DROP TRIGGER test_disk_full ON forecast_subscriptions");
      await db.sql.unsafe("DROP FUNCTION test_disk_full()");
    });
    expect(await failureOf(forecast.insert({ tenant: "t", metricId: "full", forecaster: newForecaster(), createdAt: 1 }))).toBe("full");
    expect(await failureOf(db.sql.unsafe("SELECT * FROM no_such_table"))).toMatch(/not a storage failure/);
    expect(await failureOf(db.sql.unsafe("SELECT 1/0"))).toMatch(/not a storage failure/);
  });

  it("holds fired alerts while the server is away and stores them, acting once each, when it returns", async () => {
    const { proxy, sql, health } = await cutablePool();
    const dir = mkdtempSync(join(tmpdir(), "outpost-pg-alerts-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const service = new AlertingService({ store: new PostgresAlertsStore({ sql, log, health }), plugins: defaultPlugins(), log });
    await service.open();
    cleanups.push(() => service.close());
    const actionFile = join(dir, "actions.jsonl");
    await service.actions.create("t1", { actionPlugin: "file", actionId: "f", properties: { path: actionFile } });
    await service.triggers.createFull(
      "t1",
      fullTriggerSchema.parse({
        trigger: { id: "hot", enabled: true, actions: [{ actionPlugin: "file", actionId: "f" }] },
        conditions: [{ type: "THRESHOLD", dataId: "temp", operator: "GT", threshold: 10 }],
      }),
    );
    await proxy.cut();
    let t = 1_700_000_000_000;
    for (let i = 0; i < 3; i++) await service.data.sendData("t1", [{ id: "temp", timestamp: (t += 5000), value: String(20 + i) }]);
    await waitFor("alerts held", () => (service.heldEffects > 0 ? true : undefined), 5000);
    const held = service.heldEffects;
    // Still held a while later: retried every second, refused each time.
    await Bun.sleep(1500);
    expect(service.heldEffects).toBe(held);
    await proxy.restore();
    // heldEffects drops as a retry starts; the alerts are there once its commit is done.
    const find = () => service.alerts.find(["t1"], {}, { page: 0, sort: [] });
    const stored = await waitFor("held alerts stored", async () => ((await find()).total === held ? find() : undefined), 15_000);
    expect(service.heldEffects).toBe(0);
    const lines = () => (existsSync(actionFile) ? readFileSync(actionFile, "utf8").trim().split("\n").filter(Boolean) : []);
    await waitFor("one action per alert", () => (lines().length === stored.total ? true : undefined), 10_000);
    expect(new Set(lines().map((l) => JSON.parse(l).id)).size).toBe(stored.total);
  });
});

describe("the collector on PostgreSQL when the server cannot be reached", () => {
  it("answers 503 with an errorMsg (never 500) for metrics, alerts, inventory and forecasting, and serves again when it is back", async () => {
    const proxy = await new PostgresProxy().start();
    cleanups.push(() => proxy.close());
    const col = await startTestCollector({ "database-url": db.urlVia(proxy.port) });
    cleanups.push(() => col.close());
    const trigger = { trigger: { id: "kept", enabled: true }, conditions: [] };
    expect((await col.req("/svc/alerts/triggers/trigger", { method: "POST", json: trigger })).status).toBe(200);
    const now = Date.now();
    expect((await col.req("/svc/metrics/gauges/raw", { method: "POST", json: [{ id: "g", data: [{ timestamp: now - 1000, value: 1 }] }] })).status).toBe(200);

    await proxy.cut();
    const calls: [string, string, unknown?][] = [
      ["POST", "/svc/alerts/triggers/trigger", { trigger: { id: "refused" }, conditions: [] }],
      ["GET", "/svc/alerts/triggers"],
      ["POST", "/svc/inventory/entity/feed", { id: "f1" }],
      ["GET", "/svc/inventory/entity/f;f1"],
      ["POST", "/svc/datamining/metrics", { metricId: "m1" }],
      ["POST", "/svc/metrics/gauges/raw", [{ id: "g", data: [{ timestamp: now, value: 2 }] }]],
      ["GET", "/svc/metrics/gauges/g/raw"],
      ["GET", "/svc/metrics/metrics"],
    ];
    for (const [method, path, json] of calls) {
      const res = await col.req(path, { method, ...(json === undefined ? {} : { json }) });
      expect(res.status, `${method} ${path}`).toBe(503);
      expect((await body(res)).errorMsg).toMatch(/database cannot be reached/);
    }

    await proxy.restore();
    await waitFor("writes taken again", async () => {
      const res = await col.req("/svc/inventory/entity/feed", { method: "POST", json: { id: "f1" } });
      return res.status === 201 ? true : undefined;
    }, 15_000);
    const triggers = await body(await col.req("/svc/alerts/triggers"));
    expect(triggers.map((t: { id: string }) => t.id)).toEqual(["kept"]);
    const points = await body(await col.req("/svc/metrics/gauges/g/raw?order=asc"));
    expect(points).toEqual([{ timestamp: now - 1000, value: 1 }]);
  });
});

describe("the collector on PostgreSQL given text PostgreSQL cannot hold", () => {
  it("answers 400 naming the NUL character (never 500), and goes on", async () => {
    const col = await startTestCollector({ "database-url": db.url });
    cleanups.push(() => col.close());
    const calls: [string, unknown][] = [
      ["/svc/alerts/triggers/trigger", { trigger: { id: "a\u0000b" }, conditions: [] }],
      ["/svc/alerts/events", { id: "e\u0000", category: "c", text: "t" }],
      ["/svc/inventory/entity/feed", { id: "f\u0000x" }],
      ["/svc/inventory/entity/feed", { id: "g", name: "n\u0000m" }],
      ["/svc/datamining/metrics", { metricId: "m\u0000x" }],
      ["/svc/metrics/gauges/raw", [{ id: "g\u0000", data: [{ timestamp: Date.now(), value: 1 }] }]],
    ];
    for (const [path, json] of calls) {
      const res = await col.req(path, { method: "POST", json });
      expect(res.status, `${path} ${JSON.stringify(json)}`).toBe(400);
      expect((await body(res)).errorMsg).toMatch(/NUL character/);
    }
    // In a bulk request the item gets its 400, the others are created.
    const bulk = await col.req("/svc/inventory/bulk", { method: "POST", json: { "/": { feed: [{ id: "ok-1" }, { id: "bad\u0000" }, { id: "ok-2" }] } } });
    expect(bulk.status).toBe(201);
    expect((await body(bulk)).feed).toEqual({ "/t;t1/f;ok-1": 201, "/t;t1/f;bad%00": 400, "/t;t1/f;ok-2": 201 });
    expect((await col.req("/svc/alerts/triggers/trigger", { method: "POST", json: { trigger: { id: "fine" }, conditions: [] } })).status).toBe(200);
    // A string value is stored inside a point-codec block (bytea): kept with its NUL, as on SQLite.
    const ts = Date.now();
    expect((await col.req("/svc/metrics/strings/raw", { method: "POST", json: [{ id: "s", data: [{ timestamp: ts, value: "a\u0000b" }] }] })).status).toBe(200);
    expect(await body(await col.req("/svc/metrics/strings/s/raw"))).toEqual([{ timestamp: ts, value: "a\u0000b" }]);
  });
});
