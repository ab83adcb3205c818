/**
 * Answers a Hawkular client notices, over HTTP, as upstream gives them: the texts and fields
 * come from the Ruby client's recordings against Hawkular Metrics 0.28, Alerting 1.x and
 * Inventory 1.x, and from upstream's code where no recording shows them (docs/compatibility.md).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestCollector, type TestCollector } from "../helpers/collector.ts";

let c: TestCollector;
beforeAll(async () => {
  c = await startTestCollector();
});
afterAll(() => c.close());

const M = "/hawkular/metrics";
const A = "/hawkular/alerts";
const I = "/hawkular/inventory";
// biome-ignore lint/suspicious/noExplicitAny: JSON answers
const send = async (method: string, path: string, json?: unknown, tenant = "up"): Promise<{ status: number; body: any }> => {
  const res = await c.req(path, { method, tenant, ...(json === undefined ? {} : { json }) });
  const text = await res.text();
  return { status: res.status, body: text === "" ? undefined : JSON.parse(text) };
};
const HOUR = 3_600_000;
const T0 = Math.floor(Date.now() / HOUR) * HOUR - 4 * HOUR;

describe("metrics", () => {
  it("refuses invalid bucket parameters with 400 for a metric without data and for an unknown one", async () => {
    expect((await send("POST", `${M}/gauges`, { id: "no-data" })).status).toBe(201);
    const both = "Both buckets and bucketDuration parameters are specified";
    for (const id of ["no-data", "unknown"]) {
      for (const [query, message] of [
        ["buckets=2&bucketDuration=1h", both],
        ["buckets=0", "count is not positive: 0"],
        ["buckets=2&bucketDuration=1h&fromEarliest=true", both],
        ["buckets=0&fromEarliest=true", "count is not positive: 0"],
      ] as const) {
        for (const path of [`${M}/gauges/${id}/stats?${query}`, `${M}/gauges/stats?metrics=${id}&${query}`, `${M}/availability/${id}/stats?${query}`, `${M}/counters/${id}/rate/stats?${query}`]) {
          const r = await send("GET", path);
          expect([r.status, r.body?.errorMsg], path).toEqual([400, message]);
        }
      }
      const posted = await send("POST", `${M}/gauges/stats/query`, { metrics: [id], buckets: 0 });
      expect([posted.status, posted.body?.errorMsg]).toEqual([400, "count is not positive: 0"]);
    }
  });

  it("stacked stats fill a bucket where no metric has data with zeros, as upstream adds up nothing", async () => {
    await send("POST", `${M}/gauges/raw`, [
      { id: "st.a", data: [{ timestamp: T0 + HOUR + 1000, value: 2 }] },
      { id: "st.b", data: [{ timestamp: T0 + HOUR + 2000, value: 3 }] },
    ]);
    const r = await send("GET", `${M}/gauges/stats?metrics=st.a&metrics=st.b&stacked=true&start=${T0}&end=${T0 + 2 * HOUR}&buckets=2`);
    expect(r.body).toEqual([
      { start: T0, end: T0 + HOUR, min: 0, avg: 0, median: 0, max: 0, sum: 0, empty: true },
      { start: T0 + HOUR, end: T0 + 2 * HOUR, min: 5, avg: 5, median: 5, max: 5, sum: 5, samples: 2, empty: false },
    ]);
  });

  it("an empty availability bucket carries samples: 0 and upCount: 0, as in the Ruby client's recording", async () => {
    await send("POST", `${M}/availability`, { id: "av.none" });
    await send("POST", `${M}/availability/av.some/raw`, [{ timestamp: T0 + HOUR, value: "up" }]);
    const r = await send("POST", `${M}/metrics/stats/query`, { metrics: { availability: ["av.none", "av.some"] }, start: T0, end: T0 + 2 * HOUR, buckets: 1 });
    expect(r.body.availability["av.none"]).toEqual([{ start: T0, end: T0 + 2 * HOUR, samples: 0, upCount: 0, empty: true }]);
    expect(r.body.availability["av.some"][0]).toMatchObject({ samples: 1, upCount: 1, notUpCount: 0, empty: false });
  });

  it("names the type it refuses: Incorrect type param counter_rate", async () => {
    const r = await send("GET", `${M}/metrics?type=counter_rate`);
    expect([r.status, r.body.errorMsg]).toEqual([400, "Incorrect type param counter_rate"]);
  });

  it("a bare tag name means the tag is present, in the query language and in the tag list alike", async () => {
    await send("POST", `${M}/counters`, { id: "tg.1", tags: { novalue: "x", other: "y" } });
    await send("POST", `${M}/counters`, { id: "tg.2", tags: { novalue: "z" } });
    await send("POST", `${M}/counters`, { id: "tg.3", tags: { other: "y" } });
    const ids = async (tags: string) => ((await send("GET", `${M}/counters?tags=${encodeURIComponent(tags)}`)).body ?? []).map((d: { id: string }) => d.id).sort();
    expect(await ids("novalue")).toEqual(["tg.1", "tg.2"]);
    expect(await ids("novalue:*")).toEqual(["tg.1", "tg.2"]);
    expect(await ids("novalue,other:y")).toEqual(["tg.1"]);
    expect(await ids("novalue AND other = 'y'")).toEqual(["tg.1"]);
    expect((await send("GET", `${M}/counters/tags/novalue`)).body).toEqual({ novalue: ["x", "z"] });
    // What is neither is still refused.
    expect((await send("GET", `${M}/counters?tags=${encodeURIComponent("novalue = ")}`)).status).toBe(400);
  });
});

describe("alerting", () => {
  it("a trigger without a name gets upstream's default name, and every trigger a source", async () => {
    const t = await send("POST", `${A}/triggers`, { id: "unnamed" });
    expect(t.status).toBe(200);
    expect(t.body).toMatchObject({ id: "unnamed", name: "defaultName", source: "_none_" });
    expect((await send("GET", `${A}/triggers/unnamed`)).body).toMatchObject({ name: "defaultName", source: "_none_" });
    expect((await send("POST", `${A}/triggers`, { id: "fed", name: "n", source: "edge-1" })).body.source).toBe("edge-1");
  });

  it("conditions and what fired show display strings in upstream's format", async () => {
    await send("POST", `${A}/triggers`, { id: "ds", name: "ds", enabled: true });
    const conds = await send("PUT", `${A}/triggers/ds/conditions/firing`, [
      { type: "THRESHOLD", dataId: "data-x", operator: "LT", threshold: 5 },
      { type: "COMPARE", dataId: "my-metric-id3", operator: "GT", data2Id: "my-metric-id4", data2Multiplier: 1 },
      { type: "RANGE", dataId: "r", operatorLow: "INCLUSIVE", operatorHigh: "EXCLUSIVE", thresholdLow: 1, thresholdHigh: 2.5, inRange: true },
      { type: "AVAILABILITY", dataId: "av", operator: "DOWN" },
      { type: "STRING", dataId: "s", operator: "CONTAINS", pattern: "err", ignoreCase: true },
      { type: "MISSING", dataId: "m", interval: 60000 },
    ]);
    expect(conds.body.map((x: { displayString: string }) => x.displayString)).toEqual([
      "data-x LT 5.00",
      "my-metric-id3 GT 100.00% my-metric-id4",
      "r in [1.00 , 2.50)",
      "av is DOWN",
      "s CONTAINS [err] Ignoring Case",
      "m missing GTE 60000ms",
    ]);
    await send("PUT", `${A}/triggers/ds/conditions/firing`, [{ type: "THRESHOLD", dataId: "data-x", operator: "LT", threshold: 5 }]);
    expect((await send("POST", `${A}/data`, [{ id: "data-x", timestamp: Date.now(), value: 4 }])).status).toBe(200);
    const alerts = (await send("GET", `${A}?triggerIds=ds`)).body;
    expect(alerts).toHaveLength(1);
    expect(alerts[0].evalSets[0][0].displayString).toBe("Threshold: data-x[4.00] LT 5.00");
    expect(alerts[0].dataSource).toBe("_none_");
  });

  it("events carry a dataSource and actions `global`, as upstream always writes them", async () => {
    const ev = await send("POST", `${A}/events`, { id: "ev-up", category: "c", text: "t" });
    expect(ev.body.dataSource).toBe("_none_");
    const action = await send("POST", `${A}/actions`, { actionPlugin: "webhook", actionId: "up-hook", properties: { url: "http://127.0.0.1:9/" } });
    expect(action.body.global).toBe(false);
    expect((await send("GET", `${A}/actions/webhook/up-hook`)).body.global).toBe(false);
  });

  it("error messages name the offending value as upstream's", async () => {
    const cases: [string, string, number, string][] = [
      ["GET", `${A}/plugins/-does-not-exist`, 404, "actionPlugin: -does-not-exist not found"],
      ["GET", `${A}/actions/webhook/nope`, 404, "Not action found for actionPlugin: webhook and actionId: nope"],
      ["DELETE", `${A}/actions/webhook/nope`, 404, "ActionPlugin: webhook ActionId: nope not found for delete"],
      ["GET", `${A}/triggers/nope`, 404, "triggerId: nope not found"],
      ["GET", `${A}/triggers/unnamed/dampenings/nope`, 404, "No dampening found for triggerId: unnamed and dampeningId:nope"],
      ["DELETE", `${A}/triggers/unnamed/dampenings/nope`, 404, "Dampening not found for dampeningId: nope"],
    ];
    for (const [method, path, status, message] of cases) {
      const r = await send(method, path);
      expect([r.status, r.body?.errorMsg], `${method} ${path}`).toEqual([status, message]);
    }
  });
});

describe("inventory", () => {
  it("404 and 409 texts as upstream's (the Ruby client's recordings)", async () => {
    expect((await send("POST", `${I}/entity/feed`, { id: "feed_may_exist" }, "hawkular")).status).toBe(201);
    const missing = await send("GET", `${I}/entity/f;feed_may_exist/r;%2Abla%20does%20not%20exist%2A`, undefined, "hawkular");
    expect([missing.status, missing.body.errorMsg]).toEqual([
      404,
      "No Resource found on any of the following paths: [[CanonicalPaths[/t;hawkular/f;feed_may_exist/r;%2Abla%20does%20not%20exist%2A]]]",
    ]);
    const feed = await send("POST", `${I}/entity/feed`, { id: "feed_may_exist" }, "hawkular");
    expect([feed.status, feed.body.errorMsg]).toEqual([
      409,
      "Feed with id 'Feed[path='/t;hawkular/f;feed_may_exist']' has been already registered. Entity with id 'feed_may_exist' already exists at some of the positions: [[Types[Tenant], Ids[hawkular], Related[, rel='contains', role=SOURCE], Types[Feed], Ids[feed_may_exist]]]",
    ]);
    await send("POST", `${I}/entity/f;feed_may_exist/resourceType`, { id: "rt1" }, "hawkular");
    // A numeric string where a number is expected, as everywhere else (Jackson read them).
    const mt = await send("POST", `${I}/entity/f;feed_may_exist/metricType`, { id: "mt1", type: "GAUGE", unit: "NONE", collectionInterval: "30" }, "hawkular");
    expect(mt.status).toBe(201);
    expect((await send("GET", `${I}/entity/f;feed_may_exist/mt;mt1`, undefined, "hawkular")).body.collectionInterval).toBe(30);
    await send("POST", `${I}/entity/f;feed_may_exist/resource`, { id: "r1", resourceTypePath: "/t;hawkular/f;feed_may_exist/rt;rt1" }, "hawkular");
    const dup = await send("POST", `${I}/entity/f;feed_may_exist/resource`, { id: "r1", resourceTypePath: "/t;hawkular/f;feed_may_exist/rt;rt1" }, "hawkular");
    expect([dup.status, dup.body.errorMsg]).toEqual([
      409,
      "Entity with id 'r1' already exists at some of the positions: [[Types[Tenant], Ids[hawkular], Related[, rel='contains', role=SOURCE], Types[Feed], Ids[feed_may_exist], Related[, rel='contains', role=SOURCE], Types[Resource], Ids[r1]]]",
    ]);
  });
});
