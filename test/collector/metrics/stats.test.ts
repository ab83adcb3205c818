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
const MIN = 60_000;
const HOUR = 3_600_000;
/** A minute-aligned base two hours ago, so every point below lies in the default 8 h range. */
const BASE = Math.floor((Date.now() - 2 * HOUR) / MIN) * MIN;

const post = (path: string, json: unknown, tenant = "t1") => col.req(path, { method: "POST", json, tenant });
async function get(path: string, tenant = "t1") {
  const res = await col.req(path, { tenant });
  return { status: res.status, body: res.status === 204 ? undefined : await body(res) };
}

describe("bucketed gauge stats", () => {
  beforeAll(async () => {
    // Minute points in the first, third and fourth ten-minute slots; the second stays empty.
    const pts = [];
    for (let i = 0; i < 40; i++) if (i < 10 || i >= 20) pts.push({ timestamp: BASE + i * MIN, value: i });
    await post(`${M}/gauges/st.g/raw`, pts);
  });

  it("splits [start, end) into `buckets` buckets, returning empty ones as {start, end, empty}", async () => {
    const { status, body: b } = await get(`${M}/gauges/st.g/stats?start=${BASE}&end=${BASE + 40 * MIN}&buckets=4`);
    expect(status).toBe(200);
    expect(b).toHaveLength(4);
    expect(b[1]).toEqual({ start: BASE + 10 * MIN, end: BASE + 20 * MIN, empty: true });
    const first = b[0];
    expect(first.start).toBe(BASE);
    expect(first.end).toBe(BASE + 10 * MIN);
    expect(first.min).toBe(0);
    expect(first.max).toBe(9);
    expect(first.sum).toBe(45);
    expect(first.avg).toBe(4.5);
    expect(first.samples).toBe(10);
    expect(first.empty).toBe(false);
    expect(first.median).toBeGreaterThanOrEqual(first.min);
    expect(first.median).toBeLessThanOrEqual(first.max);
    expect(b[3].min).toBe(30);
  });

  it("accepts bucketDuration instead, with every duration unit", async () => {
    const a = await get(`${M}/gauges/st.g/stats?start=${BASE}&end=${BASE + 40 * MIN}&bucketDuration=10mn`);
    const b = await get(`${M}/gauges/st.g/stats?start=${BASE}&end=${BASE + 40 * MIN}&bucketDuration=600000ms`);
    const c = await get(`${M}/gauges/st.g/stats?start=${BASE}&end=${BASE + 40 * MIN}&bucketDuration=600s`);
    expect(a.body).toHaveLength(4);
    expect(b.body).toEqual(a.body);
    expect(c.body).toEqual(a.body);
    const h = await get(`${M}/gauges/st.g/stats?start=${BASE}&end=${BASE + 40 * MIN}&bucketDuration=1h`);
    expect(h.body).toHaveLength(1);
    expect(h.body[0].samples).toBe(30);
    const d = await get(`${M}/gauges/st.g/stats?start=${BASE}&end=${BASE + 40 * MIN}&bucketDuration=1d`);
    expect(d.body[0].end - d.body[0].start).toBe(24 * HOUR);
  });

  it("takes the median of few samples as the element at floor(q·(n−1)) of the sorted values", async () => {
    await post(`${M}/gauges/st.two/raw`, [
      { timestamp: BASE, value: 198.6 },
      { timestamp: BASE + MIN, value: 172.6 },
    ]);
    const { body: b } = await get(`${M}/gauges/st.two/stats?start=${BASE}&end=${BASE + 2 * MIN}&buckets=1&percentiles=50,90,99.9`);
    expect(b[0].median).toBe(172.6);
    // The quantile is the number asked for (0.17+; the Grafana datasource and the Go client read it).
    expect(b[0].percentiles).toEqual([
      { quantile: 50, originalQuantile: "50", value: 172.6 },
      { quantile: 90, originalQuantile: "90", value: 172.6 },
      { quantile: 99.9, originalQuantile: "99.9", value: 172.6 },
    ]);
  });

  it("answers every 400 cause of the spec for bucket parameters", async () => {
    const range = `start=${BASE}&end=${BASE + 40 * MIN}`;
    const cases: [string, string | RegExp][] = [
      [`?${range}`, "Either the buckets or bucketDuration parameter must be used"],
      [`?${range}&buckets=2&bucketDuration=1h`, "Both buckets and bucketDuration parameters are specified"],
      [`?${range}&bucketDuration=1w`, /bucketDuration|duration/i],
      [`?${range}&bucketDuration=10`, /duration/i],
      [`?${range}&buckets=999999999999999999999999`, /buckets/],
      [`?${range}&buckets=abc`, /buckets/],
      [`?start=${BASE}&end=${BASE}&buckets=2`, "Range end must be strictly greater than start"],
      [`?${range}&buckets=2&percentiles=fifty`, /percentile/i],
      [`?${range}&buckets=2&limit=5`, "Limit and order cannot be used with bucketed results"],
      [`?${range}&buckets=2&order=asc`, "Limit and order cannot be used with bucketed results"],
      [`?${range}&buckets=2147483647`, /step/i],
    ];
    for (const [query, msg] of cases) {
      const res = await col.req(`${M}/gauges/st.g/stats${query}`);
      expect(res.status, query).toBe(400);
      const e = (await body(res)).errorMsg as string;
      if (typeof msg === "string") expect(e, query).toBe(msg);
      else expect(e, query).toMatch(msg);
    }
  });

  it("answers 204 for a metric without data and with fromEarliest and no data", async () => {
    expect((await get(`${M}/gauges/st.none/stats?buckets=3`)).status).toBe(204);
  });
});

describe("fromEarliest", () => {
  it("covers the retention period and drops leading empty buckets but keeps trailing ones", async () => {
    const now = Date.now();
    // Points well inside two distinct hour buckets counted back from now.
    await post(`${M}/counters/fe.c/raw`, [
      { timestamp: now - 3 * HOUR + 30_000, value: 3 },
      { timestamp: now - 2 * HOUR + 30_000, value: 5 },
    ]);
    const { status, body: b } = await get(`${M}/counters/fe.c/stats?fromEarliest=true&bucketDuration=1h`);
    expect(status).toBe(200);
    expect(b).toHaveLength(3);
    expect(b[0].max).toBe(3);
    expect(b[1].max).toBe(5);
    expect(b[2].empty).toBe(true);
    expect(b[2].end - b[0].start).toBe(3 * HOUR);
  });

  it("rejects fromEarliest with start or end, and stats without a bucket parameter", async () => {
    const a = await col.req(`${M}/counters/fe.c/stats?fromEarliest=true&bucketDuration=1h&start=${BASE}`);
    expect(a.status).toBe(400);
    expect((await body(a)).errorMsg).toBe("fromEarliest can only be used without start & end");
    const b = await col.req(`${M}/counters/fe.c/stats?fromEarliest=true`);
    expect(b.status).toBe(400);
    expect((await body(b)).errorMsg).toBe("Either the buckets or bucketDuration parameter must be used");
    // Without bucket parameters the deprecated /data reads raw points, fromEarliest included (0.18+).
    const raw = await get(`${M}/counters/fe.c/data?fromEarliest=true`);
    expect(raw.body.map((p: { value: number }) => p.value)).toEqual([5, 3]);
  });
});

describe("rates", () => {
  // CountersITest findRateWhenThereAreResets: values 1,2,3,1,2,3,1,2,3 at these minutes.
  const minutes = [1, 1.5, 3.5, 5, 7, 7.5, 8, 8.5, 9];
  const values = [1, 2, 3, 1, 2, 3, 1, 2, 3];
  beforeAll(async () => {
    await post(
      `${M}/counters/rt.c/raw`,
      minutes.map((m, i) => ({ timestamp: BASE + m * MIN, value: values[i] })),
    );
    await post(
      `${M}/gauges/rt.g/raw`,
      [10, 4, 7].map((v, i) => ({ timestamp: BASE + i * MIN, value: v })),
    );
  });

  it("computes counter rates per minute, dropping the pairs that span a reset", async () => {
    const { body: b } = await get(`${M}/counters/rt.c/rate?start=${BASE}&end=${BASE + 10 * MIN}&order=asc`);
    expect(b).toEqual([
      { timestamp: BASE + 1.5 * MIN, value: 2 },
      { timestamp: BASE + 3.5 * MIN, value: 0.5 },
      { timestamp: BASE + 7 * MIN, value: 0.5 },
      { timestamp: BASE + 7.5 * MIN, value: 2 },
      { timestamp: BASE + 8.5 * MIN, value: 2 },
      { timestamp: BASE + 9 * MIN, value: 2 },
    ]);
    const desc = await get(`${M}/counters/rt.c/rate?start=${BASE}&end=${BASE + 10 * MIN}`);
    expect(desc.body[0].timestamp).toBe(BASE + 9 * MIN);
    const limited = await get(`${M}/counters/rt.c/rate?start=${BASE}&end=${BASE + 10 * MIN}&order=asc&limit=2`);
    expect(limited.body).toHaveLength(2);
  });

  it("keeps negative gauge rates", async () => {
    const { body: b } = await get(`${M}/gauges/rt.g/rate?start=${BASE}&end=${BASE + 3 * MIN}&order=asc`);
    expect(b).toEqual([
      { timestamp: BASE + MIN, value: -6 },
      { timestamp: BASE + 2 * MIN, value: 3 },
    ]);
  });

  it("buckets the rates for rate stats", async () => {
    const { body: b } = await get(`${M}/counters/rt.c/rate/stats?start=${BASE}&end=${BASE + 10 * MIN}&buckets=1`);
    expect(b).toHaveLength(1);
    expect(b[0]).toMatchObject({ min: 0.5, max: 2, sum: 9, avg: 1.5, samples: 6, empty: false });
  });
});

describe("stats over several metrics", () => {
  beforeAll(async () => {
    for (const [id, vals, tags] of [
      ["ms.a", [1, 2, 3], { grp: "x" }],
      ["ms.b", [10, 20, 30], { grp: "x" }],
      ["ms.c", [100], { grp: "y" }],
    ] as const) {
      await post(`${M}/gauges`, { id, tags });
      await post(`${M}/gauges/${id}/raw`, vals.map((v, i) => ({ timestamp: BASE + i * MIN, value: v })));
    }
  });
  const range = `start=${BASE}&end=${BASE + 10 * MIN}`;

  it("pools the points of the named metrics when not stacked", async () => {
    const { body: b } = await get(`${M}/gauges/stats?${range}&buckets=1&metrics=ms.a&metrics=ms.b`);
    expect(b[0]).toMatchObject({ min: 1, max: 30, sum: 66, samples: 6, avg: 11 });
  });

  it("selects metrics by tags", async () => {
    const { body: b } = await get(`${M}/gauges/stats?${range}&buckets=1&tags=grp:x`);
    expect(b[0]).toMatchObject({ min: 1, max: 30, samples: 6 });
  });

  it("sums the per-metric statistics when stacked; samples counts the metrics", async () => {
    const { body: b } = await get(`${M}/gauges/stats?${range}&buckets=1&tags=grp:*&stacked=true`);
    // Per-metric buckets: a {1,3,avg 2,sum 6}, b {10,30,avg 20,sum 60}, c {100,100,avg 100,sum 100}.
    expect(b[0]).toMatchObject({ min: 111, max: 133, avg: 122, sum: 166, samples: 3, empty: false });
    expect(b[0].percentiles).toBeUndefined();
  });

  it("ignores names without a definition and answers the spec's 400s", async () => {
    const { body: b } = await get(`${M}/gauges/stats?${range}&buckets=1&metrics=ms.a&metrics=ms.nope`);
    expect(b[0].samples).toBe(3);
    const neither = await col.req(`${M}/gauges/stats?${range}&buckets=1`);
    expect(neither.status).toBe(400);
    expect((await body(neither)).errorMsg).toBe("Either metrics or tags parameter must be used");
    const both = await col.req(`${M}/gauges/stats?${range}&buckets=1&metrics=ms.a&tags=grp:x`);
    expect(both.status).toBe(400);
    expect((await body(both)).errorMsg).toBe("Cannot use both the metrics and tags parameters");
    const nobucket = await col.req(`${M}/gauges/stats?${range}&metrics=ms.a`);
    expect(nobucket.status).toBe(400);
  });

  it("serves the deprecated GET /gauges/data and /counters/data as multi-metric stats", async () => {
    const { body: b } = await get(`${M}/gauges/data?${range}&buckets=1&metrics=ms.a`);
    expect(b[0]).toMatchObject({ min: 1, max: 3, samples: 3 });
  });

  it("computes counter rate stats across metrics", async () => {
    await post(`${M}/counters/mr.a/raw`, [0, 60, 120].map((v, i) => ({ timestamp: BASE + i * MIN, value: v })));
    await post(`${M}/counters/mr.b/raw`, [0, 30].map((v, i) => ({ timestamp: BASE + i * MIN, value: v })));
    const { body: b } = await get(`${M}/counters/rate/stats?${range}&buckets=1&metrics=mr.a&metrics=mr.b`);
    expect(b[0]).toMatchObject({ min: 30, max: 60, samples: 3 });
    const st = await get(`${M}/counters/rate/stats?${range}&buckets=1&metrics=mr.a&metrics=mr.b&stacked=true`);
    // Per-metric rate buckets: a {min 60, max 60}, b {min 30, max 30}.
    expect(st.body[0]).toMatchObject({ min: 90, max: 90, samples: 2 });
  });
});

describe("availability stats", () => {
  it("reproduces the upstream test vector: every 4th minute down over an hour", async () => {
    const start = Math.floor((Date.now() - 3 * HOUR) / HOUR) * HOUR;
    const pts = Array.from({ length: 60 }, (_, i) => ({ timestamp: start + i * MIN, value: i % 4 === 3 ? "down" : "up" }));
    await post(`${M}/availability/av.x/raw`, pts);
    const { body: b } = await get(`${M}/availability/av.x/stats?start=${start}&end=${start + HOUR}&buckets=1`);
    expect(b).toEqual([
      {
        start,
        end: start + HOUR,
        downtimeDuration: 15 * MIN,
        lastDowntime: start + HOUR,
        uptimeRatio: 0.75,
        downtimeCount: 15,
        // and the 0.2x names of the same facts (AvailabilityMetricStatisticsITest at 0.28)
        durationMap: { up: 45 * MIN, down: 15 * MIN },
        upDuration: 45 * MIN,
        downDuration: 15 * MIN,
        unknownDuration: 0,
        adminDuration: 0,
        notUpDuration: 15 * MIN,
        lastNotUptime: start + HOUR,
        notUpCount: 15,
        upCount: 45,
        samples: 60,
        empty: false,
      },
    ]);
    const two = await get(`${M}/availability/av.x/stats?start=${start}&end=${start + 2 * HOUR}&bucketDuration=1h`);
    // An empty bucket still carries its counts, as the Ruby client's recordings against 0.28 show.
    expect(two.body[1]).toEqual({ start: start + HOUR, end: start + 2 * HOUR, samples: 0, upCount: 0, empty: true });
  });
});

describe("periods", () => {
  it("returns the [start, end] of each run of consecutive points meeting the threshold", async () => {
    const vals = [1, 5, 6, 2, 7, 8, 9, 1, 5];
    await post(`${M}/gauges/pd.g/raw`, vals.map((v, i) => ({ timestamp: BASE + i * MIN, value: v })));
    const range = `start=${BASE}&end=${BASE + 10 * MIN}`;
    const { body: b } = await get(`${M}/gauges/pd.g/periods?${range}&threshold=4&op=gt`);
    expect(b).toEqual([
      [BASE + MIN, BASE + 2 * MIN],
      [BASE + 4 * MIN, BASE + 6 * MIN],
      [BASE + 8 * MIN, BASE + 8 * MIN],
    ]);
    const lte = await get(`${M}/gauges/pd.g/periods?${range}&threshold=1&op=lte`);
    expect(lte.body).toEqual([
      [BASE, BASE],
      [BASE + 7 * MIN, BASE + 7 * MIN],
    ]);
    const bad = await col.req(`${M}/gauges/pd.g/periods?${range}&threshold=4&op=around`);
    expect(bad.status).toBe(400);
    const none = await get(`${M}/gauges/pd.g/periods?${range}&threshold=100&op=gte`);
    expect(none.status).toBe(204);
  });
});

describe("stats grouped by data-point tags", () => {
  it("groups the points by the values of the named tags", async () => {
    await post(`${M}/gauges/tgs.g/raw`, [
      { timestamp: BASE, value: 1, tags: { core: "0", mode: "user" } },
      { timestamp: BASE + MIN, value: 3, tags: { core: "0", mode: "sys" } },
      { timestamp: BASE + 2 * MIN, value: 10, tags: { core: "1", mode: "user" } },
      { timestamp: BASE + 3 * MIN, value: 99 },
    ]);
    const range = `start=${BASE}&end=${BASE + 10 * MIN}`;
    const { body: b } = await get(`${M}/gauges/tgs.g/stats/tags/core:*?${range}`);
    expect(Object.keys(b).sort()).toEqual(["core:0", "core:1"]);
    expect(b["core:0"]).toMatchObject({ min: 1, max: 3, samples: 2, sum: 4 });
    expect(b["core:1"]).toMatchObject({ min: 10, max: 10, samples: 1 });
    const two = await get(`${M}/gauges/tgs.g/stats/tags/core:0,mode:*?${range}`);
    expect(Object.keys(two.body).sort()).toEqual(["core:0,mode:sys", "core:0,mode:user"]);
  });
});

describe("the deprecated GET /{id}/data with bucket parameters", () => {
  it("answers bucketed stats like /stats", async () => {
    const range = `start=${BASE}&end=${BASE + 40 * MIN}`;
    const a = await get(`${M}/gauges/st.g/data?${range}&buckets=4`);
    const b = await get(`${M}/gauges/st.g/stats?${range}&buckets=4`);
    expect(a.body).toEqual(b.body);
  });
});

describe("limits beyond upstream", () => {
  it("refuses requests for more buckets than the server will build", async () => {
    const res = await col.req(`${M}/gauges/st.g/stats?bucketDuration=1ms`);
    expect(res.status).toBe(400);
    expect((await body(res)).errorMsg).toMatch(/Too many buckets/);
  });
});
