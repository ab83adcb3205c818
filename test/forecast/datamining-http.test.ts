import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { body, startTestCollector, type TestCollector } from "../helpers/collector.ts";
import { waitFor } from "../helpers/ports.ts";
import { linearTrend } from "../helpers/series.ts";

const DM = "/svc/datamining";
const MINUTE = 60_000;
const T0 = 1_700_000_000_000;
const points = (values: number[], step = MINUTE, start = T0) => values.map((value, i) => ({ timestamp: start + i * step, value }));

let col: TestCollector;
beforeAll(async () => {
  col = await startTestCollector();
});
afterAll(async () => {
  await col.close();
});

const post = (path: string, json: unknown, tenant = "t1") => col.req(DM + path, { method: "POST", json, tenant });
const put = (path: string, json: unknown, tenant = "t1") => col.req(DM + path, { method: "PUT", json, tenant });
const get = (path: string, tenant = "t1") => col.req(DM + path, { tenant });
const del = (path: string, tenant = "t1") => col.req(DM + path, { method: "DELETE", tenant });

async function expectError(res: Response, status: number, pattern?: RegExp) {
  expect(res.status).toBe(status);
  const b = await body(res);
  expect(typeof b.errorMsg).toBe("string");
  if (pattern) expect(b.errorMsg).toMatch(pattern);
}

describe("datamining: subscriptions", () => {
  it("lists its endpoints at the root, without a tenant", async () => {
    expect((await col.req(`${DM}/`, { tenant: null })).status).toBe(200);
    const res = await col.req(DM, { tenant: null });
    expect(res.status).toBe(200);
    const b = await body(res);
    expect(b).toContainEqual(expect.objectContaining({ method: "GET", path: "/metrics/{metricId}/forecaster/forecast" }));
  });

  it("requires the tenant header everywhere else", async () => {
    await expectError(await col.req(`${DM}/metrics`, { tenant: null }), 400, /Tenant/);
  });

  it("answers 204 when the tenant has no subscription", async () => {
    expect((await get("/metrics", "nobody")).status).toBe(204);
  });

  it("subscribes a metric: 201 with an absolute Location, then 409 for the same metric", async () => {
    const res = await post("/metrics", { metricId: "sub.a", collectionInterval: 60 });
    expect(res.status).toBe(201);
    expect(res.headers.get("Location")).toBe(`${col.url}${DM}/metrics/sub.a`);
    await expectError(await post("/metrics", { metricId: "sub.a" }), 409, /already subscribed/);
  });

  it("shows a subscription with its default configuration and lists it", async () => {
    await post("/metrics", { metricId: "sub.b" });
    const res = await get("/metrics/sub.b");
    expect(res.status).toBe(200);
    const b = await body(res);
    expect(b).toMatchObject({
      metricId: "sub.b",
      tenant: "t1",
      forecaster: {
        config: { windowSize: 60, ic: "AICc", conceptDriftStrategy: { strategy: "PeriodicIntervalStrategy", period: 25 } },
        learnedPoints: 0,
      },
    });
    expect(b.forecaster.model).toBeUndefined();
    const list = await body(await get("/metrics"));
    expect(list.map((s: { metricId: string }) => s.metricId)).toContain("sub.b");
  });

  it("answers 404 for every operation on a metric that is not subscribed", async () => {
    await expectError(await get("/metrics/none"), 404, /not found/);
    await expectError(await put("/metrics/none", { windowSize: 10 }), 404);
    await expectError(await del("/metrics/none"), 404);
    await expectError(await put("/metrics/none/forecaster", { ic: "BIC" }), 404);
    await expectError(await get("/metrics/none/forecaster/forecast?ahead=2"), 404);
    await expectError(await post("/metrics/none/forecaster/learn", points([1, 2, 3])), 404);
  });

  it("deletes a subscription: 204, then 404", async () => {
    await post("/metrics", { metricId: "sub.c" });
    expect((await del("/metrics/sub.c")).status).toBe(204);
    await expectError(await get("/metrics/sub.c"), 404);
    await expectError(await del("/metrics/sub.c"), 404);
    expect((await post("/metrics", { metricId: "sub.c" })).status).toBe(201);
  });

  it("answers 405 for a method a resource does not support", async () => {
    expect((await col.req(`${DM}/metrics/sub.a/forecaster/learn`, { tenant: "t1" })).status).toBe(405);
  });

  it("serves the same interface under /hawkular with the Hawkular-Tenant header", async () => {
    const res = await col.req("/hawkular/datamining/metrics/sub.a", { tenant: null, headers: { "Hawkular-Tenant": "t1" } });
    expect(res.status).toBe(200);
    expect((await body(res)).metricId).toBe("sub.a");
  });
});

describe("datamining: learn and forecast", () => {
  it("refuses to forecast before the model has data (400, as upstream)", async () => {
    await post("/metrics", { metricId: "lf.empty" });
    await expectError(await get("/metrics/lf.empty/forecaster/forecast"), 400, /Model not initialized/);
  });

  it("learns points (204) and forecasts ahead N with a 95 % band, stepping by collectionInterval", async () => {
    await post("/metrics", { metricId: "lf.trend", collectionInterval: 60 });
    const y = linearTrend(60, 41);
    expect((await post("/metrics/lf.trend/forecaster/learn", points(y))).status).toBe(204);
    const res = await get("/metrics/lf.trend/forecaster/forecast?ahead=3");
    expect(res.status).toBe(200);
    const out = await body(res);
    const last = T0 + 59 * MINUTE;
    expect(out.map((p: { timestamp: number }) => p.timestamp)).toEqual([last + MINUTE, last + 2 * MINUTE, last + 3 * MINUTE]);
    for (const p of out) {
      expect(Object.keys(p).sort()).toEqual(["max", "min", "timestamp", "value"]);
      expect(p.min).toBeLessThan(p.value);
      expect(p.max).toBeGreaterThan(p.value);
    }
    const sub = await body(await get("/metrics/lf.trend"));
    expect(sub.forecaster.model.name).toBe("DoubleExponentialSmoothing");
    expect(sub.forecaster.learnedPoints).toBe(60);
    expect(sub.forecaster.lastTimestamp).toBe(last);
  });

  it("forecasts one point when ahead is not given", async () => {
    const out = await body(await get("/metrics/lf.trend/forecaster/forecast"));
    expect(out).toHaveLength(1);
  });

  it("infers the step from the data when no collectionInterval was given", async () => {
    await post("/metrics", { metricId: "lf.step" });
    await post("/metrics/lf.step/forecaster/learn", points(linearTrend(20, 42), 5000));
    const out = await body(await get("/metrics/lf.step/forecaster/forecast?ahead=2"));
    expect(out[1].timestamp - out[0].timestamp).toBe(5000);
  });

  it("updates the forecaster (204): model, criterion, window, drift strategy; then forecasts with it", async () => {
    const update = {
      modelToUse: "SimpleExponentialSmoothing",
      ic: "BIC",
      windowSize: 30,
      conceptDriftStrategy: { strategy: "ErrorChangeStrategy", percentageChange: 19, statistics: "MSE" },
    };
    expect((await put("/metrics/lf.trend/forecaster", update)).status).toBe(204);
    const sub = await body(await get("/metrics/lf.trend"));
    expect(sub.forecaster.config).toEqual(update);
    expect(sub.forecaster.model.name).toBe("SimpleExponentialSmoothing");
    expect(sub.forecaster.windowPoints).toBe(30);
    const out = await body(await get("/metrics/lf.trend/forecaster/forecast?ahead=4"));
    // Simple smoothing forecasts a flat line.
    expect(new Set(out.map((p: { value: number }) => p.value)).size).toBe(1);
  });

  it("sets a period and forces the seasonal model; an update without a period detects the season again", async () => {
    await post("/metrics", { metricId: "lf.season", collectionInterval: 3600 });
    const y = Array.from({ length: 36 }, (_, t) => 10 + [4, 0, -4, 0][t % 4]! + 0.01 * ((t * 7) % 5));
    await post("/metrics/lf.season/forecaster/learn", points(y, 3_600_000));
    expect((await put("/metrics/lf.season/forecaster", { modelToUse: "TripleExponentialSmoothing", period: 4 })).status).toBe(204);
    let sub = await body(await get("/metrics/lf.season"));
    expect(sub.forecaster.model).toMatchObject({ name: "TripleExponentialSmoothing", period: 4 });
    const out = await body(await get("/metrics/lf.season/forecaster/forecast?ahead=4"));
    // The forecast repeats the season: high, mid, low, mid.
    expect(out[0].value).toBeGreaterThan(out[1].value);
    expect(out[1].value).toBeGreaterThan(out[2].value);
    // null is absent: modelToUse stays; every forecaster update sets the period, as upstream's.
    expect((await put("/metrics/lf.season/forecaster", { modelToUse: null, period: null })).status).toBe(204);
    sub = await body(await get("/metrics/lf.season"));
    expect(sub.forecaster.config.modelToUse).toBe("TripleExponentialSmoothing");
    expect(sub.forecaster.config.period).toBeUndefined();
    expect((await put("/metrics/lf.season/forecaster", { period: 4 })).status).toBe(204);
    expect((await put("/metrics/lf.season/forecaster", { ic: "BIC" })).status).toBe(204);
    expect((await body(await get("/metrics/lf.season"))).forecaster.config.period).toBeUndefined();
  });

  it("updates the metric (204): collectionInterval changes the forecast step", async () => {
    expect((await put("/metrics/lf.trend", { collectionInterval: 120 })).status).toBe(204);
    const out = await body(await get("/metrics/lf.trend/forecaster/forecast?ahead=2"));
    expect(out[1].timestamp - out[0].timestamp).toBe(120_000);
    expect((await body(await get("/metrics/lf.trend"))).collectionInterval).toBe(120);
  });
});

describe("datamining: bad input is a 400 with errorMsg", () => {
  it("rejects bad subscriptions", async () => {
    await expectError(await post("/metrics", {}), 400, /metricId/);
    await expectError(await post("/metrics", { metricId: "  " }), 400, /metricId/);
    await expectError(await post("/metrics", { metricId: "x", collectionInterval: 0 }), 400, /collectionInterval/);
    await expectError(await post("/metrics", { metricId: "x", collectionInterval: 1.5 }), 400, /collectionInterval/);
    await expectError(await post("/metrics", { metricId: "x", color: "red" }), 400, /color/);
    await expectError(await post("/metrics", [1]), 400);
    await expectError(await col.req(`${DM}/metrics`, { method: "POST", body: "{nope", headers: { "Content-Type": "application/json" } }), 400, /JSON/);
    await expectError(await col.req(`${DM}/metrics`, { method: "POST", body: "", headers: { "Content-Type": "application/json" } }), 400, /empty/);
    await expectError(await col.req(`${DM}/metrics`, { method: "POST", body: "m", headers: { "Content-Type": "text/plain" } }), 415);
    expect((await get("/metrics/x")).status).toBe(404);
  });

  it("rejects bad updates", async () => {
    await post("/metrics", { metricId: "bad.u" });
    await expectError(await put("/metrics/bad.u/forecaster", { ic: "XIC" }), 400, /ic/);
    await expectError(await put("/metrics/bad.u/forecaster", { modelToUse: "Arima" }), 400, /modelToUse/);
    await expectError(await put("/metrics/bad.u/forecaster", { windowSize: 3 }), 400, /windowSize/);
    await expectError(await put("/metrics/bad.u/forecaster", { period: 1 }), 400, /period/);
    await expectError(await put("/metrics/bad.u/forecaster", { conceptDriftStrategy: { strategy: "Sometimes" } }), 400, /strategy/);
    await expectError(
      await put("/metrics/bad.u/forecaster", { conceptDriftStrategy: { strategy: "ErrorChangeStrategy", percentageChange: 400 } }),
      400,
      /percentageChange/,
    );
    await expectError(await put("/metrics/bad.u/forecaster", { collectionInterval: 5 }), 400, /collectionInterval/);
    await expectError(await put("/metrics/bad.u", { collectionInterval: -5 }), 400, /collectionInterval/);
    await expectError(await put("/metrics/bad.u/forecaster", null), 400);
  });

  it("rejects bad learning data and bad forecast requests", async () => {
    await expectError(await post("/metrics/bad.u/forecaster/learn", []), 400, /empty/);
    await expectError(await post("/metrics/bad.u/forecaster/learn", [{ timestamp: "later", value: 1 }]), 400, /timestamp/);
    await expectError(await post("/metrics/bad.u/forecaster/learn", [{ timestamp: 1, value: "high" }]), 400, /value/);
    await expectError(await post("/metrics/bad.u/forecaster/learn", { timestamp: 1, value: 1 }), 400);
    for (const ahead of ["0", "-1", "abc", "1.5", "99999999"]) {
      await expectError(await get(`/metrics/bad.u/forecaster/forecast?ahead=${ahead}`), 400, /ahead/);
    }
  });
});

describe("datamining: learning from the metrics interface", () => {
  const NOW = Math.floor(Date.now() / MINUTE) * MINUTE;
  const recent = (values: number[], from: number) => points(values, MINUTE, NOW - 100 * MINUTE + from * MINUTE);
  const writeGauge = (id: string, data: unknown, tenant = "t1") =>
    col.req(`/svc/metrics/gauges/${encodeURIComponent(id)}/raw`, { method: "POST", json: data, tenant });

  it("forecasts from points written through POST /svc/metrics/gauges/{id}/raw, with no learn call", async () => {
    expect((await post("/metrics", { metricId: "http.gauge", collectionInterval: 60 })).status).toBe(201);
    const y = linearTrend(40, 45);
    for (let i = 0; i < y.length; i += 8) expect((await writeGauge("http.gauge", recent(y.slice(i, i + 8), i))).status).toBe(200);
    // Learned from the points bus, after the subscription's read of its history (slower on PostgreSQL).
    const learned = await waitFor("the 40 points learned", async () => {
      const n = (await body(await get("/metrics/http.gauge"))).forecaster.learnedPoints as number;
      return n >= 40 ? n : undefined;
    }, 10_000);
    expect(learned).toBe(40);
    const out = await body(await get("/metrics/http.gauge/forecaster/forecast?ahead=2"));
    expect(out[0].timestamp).toBe(NOW - 100 * MINUTE + 40 * MINUTE);
  });

  it("learns the points already stored when the metric is subscribed", async () => {
    const y = linearTrend(30, 46);
    expect((await writeGauge("http.before", recent(y, 0))).status).toBe(200);
    expect((await post("/metrics", { metricId: "http.before" })).status).toBe(201);
    const sub = await body(await get("/metrics/http.before"));
    expect(sub.forecaster.learnedPoints).toBe(30);
    expect((await get("/metrics/http.before/forecaster/forecast")).status).toBe(200);
  });

  it("learns only from its own tenant's writes", async () => {
    await post("/metrics", { metricId: "http.iso" }, "t1");
    expect((await writeGauge("http.iso", recent([1, 2, 3, 4, 5], 0), "t2")).status).toBe(200);
    expect((await body(await get("/metrics/http.iso"))).forecaster.learnedPoints).toBe(0);
  });
});

describe("datamining: tenants", () => {
  it("never shows one tenant's subscriptions or models to another", async () => {
    await post("/metrics", { metricId: "shared" }, "ta");
    await post("/metrics/shared/forecaster/learn", points(linearTrend(30, 43)), "ta");
    expect((await get("/metrics", "tb")).status).toBe(204);
    await expectError(await get("/metrics/shared", "tb"), 404);
    await expectError(await get("/metrics/shared/forecaster/forecast", "tb"), 404);
    await expectError(await post("/metrics/shared/forecaster/learn", points([1, 2, 3]), "tb"), 404);
    await expectError(await del("/metrics/shared", "tb"), 404);

    expect((await post("/metrics", { metricId: "shared" }, "tb")).status).toBe(201);
    await expectError(await get("/metrics/shared/forecaster/forecast", "tb"), 400, /Model not initialized/);
    expect((await get("/metrics/shared/forecaster/forecast", "ta")).status).toBe(200);
    expect((await body(await get("/metrics/shared", "ta"))).forecaster.learnedPoints).toBe(30);
    expect((await body(await get("/metrics/shared", "tb"))).forecaster.learnedPoints).toBe(0);
  });
});

describe("datamining: persistence", () => {
  it("keeps subscriptions and learned models across a collector restart", async () => {
    const first = await startTestCollector();
    try {
      await first.req(`${DM}/metrics`, { method: "POST", json: { metricId: "kept", collectionInterval: 60 } });
      await first.req(`${DM}/metrics/kept/forecaster/learn`, { method: "POST", json: points(linearTrend(50, 44)) });
      await first.req(`${DM}/metrics/kept/forecaster`, { method: "PUT", json: { ic: "BIC" } });
      const before = await body(await first.req(`${DM}/metrics/kept/forecaster/forecast?ahead=5`));
      await first.stop();
      const second = await startTestCollector({}, first.dataDir);
      try {
        const sub = await body(await second.req(`${DM}/metrics/kept`));
        expect(sub.forecaster.config.ic).toBe("BIC");
        expect(sub.collectionInterval).toBe(60);
        expect(await body(await second.req(`${DM}/metrics/kept/forecaster/forecast?ahead=5`))).toEqual(before);
      } finally {
        await second.close();
      }
    } finally {
      await first.close().catch(() => {});
    }
  });
});
