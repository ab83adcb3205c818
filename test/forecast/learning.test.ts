import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PointsBus } from "../../collector/events/points-bus.ts";
import type { PointSource } from "../../collector/forecast/history.ts";
import { ForecastingService } from "../../collector/forecast/service.ts";
import { createForecasting } from "../../collector/forecast/start.ts";
import { writePoints } from "../../collector/metrics/write-points.ts";
import { SqliteForecastStore } from "../../collector/store/forecast/sqlite.ts";
import { openSqliteMetricsStore } from "../../collector/store/metrics/sqlite/store.ts";
import { createLogger } from "../../src/log/logger.ts";
import { linearTrend } from "../helpers/series.ts";
import { STALE_NAN } from "../../src/prometheus/staleness.ts";

const log = createLogger("silent");
const MINUTE = 60_000;
// Recent timestamps: the metrics store applies its retention to reads.
const T0 = Math.floor(Date.now() / MINUTE) * MINUTE - 200 * MINUTE;
const pts = (values: number[], from = 0) => values.map((value, i) => ({ timestamp: T0 + (from + i) * MINUTE, value }));

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

async function setup(dir = mkdtempSync(join(tmpdir(), "outpost-forecast-"))) {
  const metrics = await openSqliteMetricsStore({ dataDir: dir, synchronous: "NORMAL", maintenanceIntervalMs: 3_600_000 });
  const bus = new PointsBus((e) => {
    throw e;
  });
  const forecasting = createForecasting({ dataDir: dir, bus, log, points: metrics, synchronous: "NORMAL" });
  await forecasting.open();
  const close = async () => {
    await forecasting.close();
    if (metrics.ready()) await metrics.close();
  };
  cleanup.push(close);
  return { dir, metrics, bus, svc: forecasting.service, close, write: writePoints.bind(null, { store: metrics, bus }) };
}

function keep(dir: string) {
  cleanup.unshift(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe("forecasters learn from the metrics store", () => {
  it("learn the points written to a subscribed gauge, with no learn call", async () => {
    const { dir, svc, write } = await setup();
    keep(dir);
    await svc.subscribe("t", { metricId: "cpu", collectionInterval: 60 });
    const y = linearTrend(40, 51);
    for (let i = 0; i < y.length; i += 10) await write("t", [{ type: "gauge", id: "cpu", points: pts(y.slice(i, i + 10), i) }], "http");
    const sub = svc.get("t", "cpu");
    expect(sub.forecaster.learned).toBe(40);
    expect(sub.forecaster.window.values).toEqual(y);
    const out = svc.forecast("t", "cpu", 2);
    expect(out[0]!.timestamp).toBe(T0 + 40 * MINUTE);
  });

  it("follow counters too, but not availability or strings, other ids or other tenants", async () => {
    const { dir, svc, write } = await setup();
    keep(dir);
    await svc.subscribe("t", { metricId: "m" });
    await write("t", [{ type: "counter", id: "m", points: pts([1, 2, 3]) }], "mqtt:feed");
    await write("t", [{ type: "availability", id: "m", points: [{ timestamp: T0 + 10 * MINUTE, value: "up" }] }], "http");
    await write("t", [{ type: "string", id: "m", points: [{ timestamp: T0 + 11 * MINUTE, value: "hello" }] }], "http");
    await write("t", [{ type: "gauge", id: "other", points: pts([9, 9, 9], 20) }], "http");
    await write("u", [{ type: "gauge", id: "m", points: pts([7, 7, 7], 30) }], "http");
    const f = svc.get("t", "m").forecaster;
    expect(f.window.values).toEqual([1, 2, 3]);
    expect(f.lastTimestamp).toBe(T0 + 2 * MINUTE);
  });

  it("learn the history already stored when the metric is subscribed", async () => {
    const { dir, svc, metrics } = await setup();
    keep(dir);
    const y = linearTrend(50, 52);
    await metrics.write("t", [{ type: "gauge", id: "old", points: pts(y) }]);
    await svc.subscribe("t", { metricId: "old" });
    const f = svc.get("t", "old").forecaster;
    expect(f.learned).toBe(50);
    expect(f.window.values).toEqual(y);
    expect(svc.forecast("t", "old", 1)[0]!.timestamp).toBe(T0 + 50 * MINUTE);
  });

  it("keep points that arrive while the history is being read, and learn them after it", async () => {
    const dir = keep(mkdtempSync(join(tmpdir(), "outpost-forecast-")));
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const history = pts([1, 2, 3, 4]);
    const source: PointSource = {
      async readRaw(_t, type) {
        await gate;
        const mine = type === "gauge" ? [...history].reverse() : [];
        return { ts: mine.map((p) => p.timestamp), values: mine.map((p) => p.value) };
      },
    };
    const store = new SqliteForecastStore({ dataDir: dir, log });
    cleanup.push(() => store.close());
    const svc = new ForecastingService({ store, points: source, log });
    await svc.open();
    const subscribing = svc.subscribe("t", { metricId: "g" });
    // A staleness marker (remote write) is no value to learn.
    svc.onPoints({ tenant: "t", origin: "http", writes: [{ type: "gauge", id: "g", points: [...pts([5, 6], 4), { timestamp: pts([0], 6)[0]!.timestamp - 1, value: STALE_NAN }] }] });
    await svc.learn("t", "g", pts([7], 6));
    release();
    await subscribing;
    expect(svc.get("t", "g").forecaster.window.values).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it("keep what they learned across a restart and catch up with points stored meanwhile", async () => {
    const first = await setup();
    keep(first.dir);
    await first.svc.subscribe("t", { metricId: "disk" });
    const y = linearTrend(45, 53);
    await first.write("t", [{ type: "gauge", id: "disk", points: pts(y.slice(0, 30)) }], "http");
    // Stored without the forecaster seeing it, as when the collector stops between commit and learning.
    await first.metrics.write("t", [{ type: "gauge", id: "disk", points: pts(y.slice(30), 30) }]);
    expect(first.svc.get("t", "disk").forecaster.learned).toBe(30);
    await first.close();

    const second = await setup(first.dir);
    const f = second.svc.get("t", "disk").forecaster;
    expect(f.learned).toBe(45);
    expect(f.window.values).toEqual(y);
  });
});
