import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { body, startTestCollector, type TestCollector } from "../../helpers/collector.ts";

let col: TestCollector;
beforeAll(async () => {
  col = await startTestCollector();
});
afterAll(async () => {
  await col.close();
});

const M = "/svc/metrics";
const NOW = Date.now();
/** Ten points a minute apart, ending a minute ago: values 0..9 by age, oldest first. */
const TEN = Array.from({ length: 10 }, (_, i) => ({ timestamp: NOW - (10 - i) * 60_000, value: i }));

async function raw(path: string, tenant = "t1") {
  const res = await col.req(path, { tenant });
  return res.status === 204 ? [] : ((await body(res)) as { timestamp: number; value: unknown; tags?: object }[]);
}

describe("raw writes", () => {
  it("accepts points under `data` (older clients) and `dataPoints` (the spec's field)", async () => {
    const res = await col.req(`${M}/gauges/raw`, {
      method: "POST",
      json: [
        { id: "w.data", data: [{ timestamp: NOW - 1000, value: 1.5 }] },
        { id: "w.points", dataPoints: [{ timestamp: NOW - 1000, value: 2.5 }] },
      ],
    });
    expect(res.status).toBe(200);
    expect(await raw(`${M}/gauges/w.data/raw`)).toEqual([{ timestamp: NOW - 1000, value: 1.5 }]);
    expect(await raw(`${M}/gauges/w.points/raw`)).toEqual([{ timestamp: NOW - 1000, value: 2.5 }]);
  });

  it("writes every type through the mixed endpoint", async () => {
    const t = NOW - 2000;
    const res = await col.req(`${M}/metrics/raw`, {
      method: "POST",
      json: {
        gauges: [{ id: "mix.g", data: [{ timestamp: t, value: 1.25 }] }],
        counters: [{ id: "mix.c", data: [{ timestamp: t, value: 7 }] }],
        availabilities: [{ id: "mix.a", data: [{ timestamp: t, value: "UP" }] }],
        strings: [{ id: "mix.s", data: [{ timestamp: t, value: "hello" }] }],
      },
    });
    expect(res.status).toBe(200);
    expect(await raw(`${M}/gauges/mix.g/raw`)).toEqual([{ timestamp: t, value: 1.25 }]);
    expect(await raw(`${M}/counters/mix.c/raw`)).toEqual([{ timestamp: t, value: 7 }]);
    // Availability input is case-insensitive, output lower case.
    expect(await raw(`${M}/availability/mix.a/raw`)).toEqual([{ timestamp: t, value: "up" }]);
    expect(await raw(`${M}/strings/mix.s/raw`)).toEqual([{ timestamp: t, value: "hello" }]);
  });

  it("rejects bad payloads with 400 and stores nothing from them", async () => {
    const bad: [string, unknown][] = [
      [`${M}/gauges/w.bad/raw`, []],
      [`${M}/gauges/w.bad/raw`, [{ value: 1 }]],
      [`${M}/gauges/w.bad/raw`, [{ timestamp: NOW }]],
      [`${M}/gauges/w.bad/raw`, [{ timestamp: NOW, value: null }]],
      [`${M}/gauges/w.bad/raw`, [{ timestamp: NOW, value: "abc" }]],
      [`${M}/gauges/w.bad/raw`, [{ timestamp: "soon", value: 1 }]],
      [`${M}/gauges/w.bad/raw`, [{ timestamp: NOW, value: 1 }, { timestamp: NOW + 1, value: "x" }]],
      [`${M}/counters/w.bad/raw`, [{ timestamp: NOW, value: 1.5 }]],
      [`${M}/availability/w.bad/raw`, [{ timestamp: NOW, value: "sideways" }]],
      [`${M}/strings/w.bad/raw`, [{ timestamp: NOW, value: "x".repeat(2049) }]],
      [`${M}/gauges/raw`, [{ data: [{ timestamp: NOW, value: 1 }] }]],
      [`${M}/gauges/raw`, []],
      [`${M}/metrics/raw`, {}],
      [`${M}/metrics/raw`, { gauges: [] }],
    ];
    for (const [path, json] of bad) {
      const res = await col.req(path, { method: "POST", json });
      expect(res.status, `${path} ${JSON.stringify(json).slice(0, 60)}`).toBe(400);
      expect(typeof (await body(res)).errorMsg).toBe("string");
    }
    expect(await raw(`${M}/gauges/w.bad/raw`)).toEqual([]);
  });

  it("refuses values written as strings (padded or not) and padded timestamps, naming the rule, and stores nothing", async () => {
    for (const [point, rule] of [
      [{ timestamp: NOW - 5, value: " 5 " }, /gauge values are finite JSON numbers/],
      [{ timestamp: NOW - 5, value: "3.5" }, /gauge values are finite JSON numbers/],
      [{ timestamp: ` ${NOW - 5} `, value: 3.5 }, /timestamp must be an integer number of milliseconds \(a JSON number\)/],
      [{ timestamp: `${NOW - 5}.0`, value: 3.5 }, /timestamp must be an integer number of milliseconds \(a JSON number\)/],
    ] as const) {
      const res = await col.req(`${M}/gauges/w.str/raw`, { method: "POST", json: [point] });
      expect(res.status).toBe(400);
      expect((await body(res)).errorMsg).toMatch(rule);
    }
    expect(await raw(`${M}/gauges/w.str/raw`)).toEqual([]);
  });

  it("reads a timestamp written exactly as a string of digits (hawkular-client-python sends a datetime so)", async () => {
    const res = await col.req(`${M}/gauges/w.strts/raw`, { method: "POST", json: [{ timestamp: String(NOW - 5), value: 1.45 }] });
    expect(res.status).toBe(200);
    expect(await raw(`${M}/gauges/w.strts/raw`)).toEqual([{ timestamp: NOW - 5, value: 1.45 }]);
  });

  it("is idempotent per (metric, timestamp): the last value written wins", async () => {
    await col.req(`${M}/gauges/w.idem/raw`, { method: "POST", json: TEN });
    await col.req(`${M}/gauges/w.idem/raw`, { method: "POST", json: TEN });
    await col.req(`${M}/gauges/w.idem/raw`, { method: "POST", json: [{ timestamp: TEN[3]!.timestamp, value: 33 }] });
    const pts = await raw(`${M}/gauges/w.idem/raw?order=asc`);
    expect(pts.length).toBe(10);
    expect(pts[3]!.value).toBe(33);
  });

  it("keeps data-point tags and echoes them on raw reads", async () => {
    await col.req(`${M}/gauges/w.tags/raw`, {
      method: "POST",
      json: [
        { timestamp: NOW - 2000, value: 1, tags: { core: "0" } },
        { timestamp: NOW - 1000, value: 2 },
      ],
    });
    expect(await raw(`${M}/gauges/w.tags/raw?order=asc`)).toEqual([
      { timestamp: NOW - 2000, value: 1, tags: { core: "0" } },
      { timestamp: NOW - 1000, value: 2 },
    ]);
  });

  it("serves the deprecated /data write aliases", async () => {
    expect((await col.req(`${M}/counters/w.dep/data`, { method: "POST", json: [{ timestamp: NOW - 1, value: 5 }] })).status).toBe(200);
    expect((await col.req(`${M}/counters/data`, { method: "POST", json: [{ id: "w.dep2", data: [{ timestamp: NOW - 1, value: 6 }] }] })).status).toBe(200);
    expect((await col.req(`${M}/metrics/data`, { method: "POST", json: { counters: [{ id: "w.dep3", data: [{ timestamp: NOW - 1, value: 7 }] }] } })).status).toBe(200);
    expect((await raw(`${M}/counters/w.dep/raw`))[0]!.value).toBe(5);
    expect((await raw(`${M}/counters/w.dep2/raw`))[0]!.value).toBe(6);
    expect((await raw(`${M}/counters/w.dep3/raw`))[0]!.value).toBe(7);
  });
});

describe("raw reads: range, order and limit (spec Limits table)", () => {
  beforeAll(async () => {
    await col.req(`${M}/gauges/r.ten/raw`, { method: "POST", json: TEN });
    await col.req(`${M}/gauges/r.old/raw`, { method: "POST", json: [{ timestamp: NOW - 9 * 3_600_000, value: -1 }, { timestamp: NOW - 60_000, value: 1 }] });
  });
  const values = async (query: string) => (await raw(`${M}/gauges/r.ten/raw${query}`)).map((p) => p.value);

  it("defaults to the last 8 hours, newest first", async () => {
    expect(await values("")).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    expect((await raw(`${M}/gauges/r.old/raw`)).map((p) => p.value)).toEqual([1]);
    expect((await raw(`${M}/gauges/r.old/raw?start=${NOW - 10 * 3_600_000}`)).map((p) => p.value)).toEqual([1, -1]);
  });

  it("start is inclusive and end exclusive", async () => {
    expect(await values(`?start=${TEN[2]!.timestamp}&end=${TEN[5]!.timestamp}&order=asc`)).toEqual([2, 3, 4]);
  });

  it("with a limit: ascending when only start is given, descending otherwise; order overrides", async () => {
    const start = TEN[0]!.timestamp;
    const end = NOW;
    expect(await values(`?limit=3&start=${start}`)).toEqual([0, 1, 2]);
    expect(await values(`?limit=3&end=${end}`)).toEqual([9, 8, 7]);
    expect(await values(`?limit=3&start=${start}&end=${end}`)).toEqual([9, 8, 7]);
    expect(await values("?limit=3")).toEqual([9, 8, 7]);
    expect(await values(`?limit=3&start=${start}&order=DESC`)).toEqual([9, 8, 7]);
    expect(await values("?limit=2&order=asc")).toEqual([0, 1]);
  });

  it("treats a zero or negative limit as no limit", async () => {
    expect((await values("?limit=0")).length).toBe(10);
    expect((await values("?limit=-5")).length).toBe(10);
  });

  it("answers 400 for end <= start, bad numbers and unknown order", async () => {
    for (const q of [`?start=${NOW}&end=${NOW}`, `?start=${NOW}&end=${NOW - 1}`, "?start=abc", "?limit=x", "?order=sideways", "?limit=99999999999"]) {
      const res = await col.req(`${M}/gauges/r.ten/raw${q}`);
      expect(res.status, q).toBe(400);
      expect((await body(res)).errorMsg).toBeTruthy();
    }
    const res = await col.req(`${M}/gauges/r.ten/raw?start=${NOW}&end=${NOW - 1}`);
    expect((await body(res)).errorMsg).toBe("Range end must be strictly greater than start");
  });

  it("answers 204 for a metric without points in the range", async () => {
    expect((await col.req(`${M}/gauges/r.ten/raw?start=1&end=2`)).status).toBe(204);
    expect((await col.req(`${M}/gauges/r.unknown/raw`)).status).toBe(204);
  });

  it("serves the deprecated GET /{id}/data as a raw read without bucket parameters", async () => {
    const pts = await raw(`${M}/gauges/r.ten/data?limit=2&order=asc`);
    expect(pts.map((p) => p.value)).toEqual([0, 1]);
    const res = await col.req(`${M}/gauges/r.ten/data?buckets=2&limit=2`);
    expect(res.status).toBe(400);
    expect((await body(res)).errorMsg).toBe("Limit and order cannot be used with bucketed results");
  });
});

describe("distinct raw reads of availability and strings", () => {
  it("drops points equal to the previous one in traversal order", async () => {
    const vals = ["up", "up", "down", "down", "up", "unknown", "unknown"];
    await col.req(`${M}/availability/d.a/raw`, { method: "POST", json: vals.map((value, i) => ({ timestamp: NOW - 10_000 + i * 1000, value })) });
    const asc = await raw(`${M}/availability/d.a/raw?distinct=true&order=asc`);
    expect(asc.map((p) => p.value)).toEqual(["up", "down", "up", "unknown"]);
    expect(asc[0]!.timestamp).toBe(NOW - 10_000);
    const desc = await raw(`${M}/availability/d.a/raw?distinct=true`);
    expect(desc.map((p) => p.value)).toEqual(["unknown", "up", "down", "up"]);
    expect(desc[0]!.timestamp).toBe(NOW - 10_000 + 6000);

    const strs = ["a", "a", "b", "a"];
    await col.req(`${M}/strings/d.s/raw`, { method: "POST", json: strs.map((value, i) => ({ timestamp: NOW - 10_000 + i * 1000, value })) });
    expect((await raw(`${M}/strings/d.s/raw?distinct=true&order=asc`)).map((p) => p.value)).toEqual(["a", "b", "a"]);
    expect((await raw(`${M}/strings/d.s/raw?order=asc`)).map((p) => p.value)).toEqual(strs);
  });
});

describe("metric ids in paths", () => {
  it("decodes percent-encoded ids, including slashes and spaces", async () => {
    const res = await col.req(`${M}/gauges/${encodeURIComponent("disk /var used")}/raw`, { method: "POST", json: [{ timestamp: NOW - 1, value: 3 }] });
    expect(res.status).toBe(200);
    expect(await raw(`${M}/gauges/disk%20%2Fvar%20used/raw`)).toEqual([{ timestamp: NOW - 1, value: 3 }]);
    const def = await body(await col.req(`${M}/gauges/disk%20%2Fvar%20used`));
    expect(def.id).toBe("disk /var used");
  });

  it("treats a trailing slash like none", async () => {
    expect((await col.req(`${M}/`, { tenant: null })).status).toBe(200);
  });
});
