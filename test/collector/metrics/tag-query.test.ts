import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { body, startTestCollector, type TestCollector } from "../../helpers/collector.ts";

/**
 * The tag query language of Hawkular Metrics 0.24+ in `GET /metrics?tags=` and `GET /{type}?tags=`,
 * with the cases of upstream's ExpressionTagQueryITest (0.28), and the tag endpoints around it.
 */

let col: TestCollector;
beforeAll(async () => {
  col = await startTestCollector();
});
afterAll(async () => {
  await col.close();
});

const M = "/svc/metrics";
const TYPES = [
  { path: "gauges", type: "gauge" },
  { path: "availability", type: "availability" },
  { path: "counters", type: "counter" },
  { path: "strings", type: "string" },
];
const METRICS = [
  { id: "m1", tags: { a1: "d", b1: "B", a2: "a" } },
  { id: "m2", tags: { a1: "xyz", b1: "B", a2: "b" } },
  { id: "m3", tags: { a1: "abcd", b1: "C" } },
  { id: "m4", tags: { a1: "ab", b1: "B" } },
  { id: "m5", tags: { a1: "xyz", b1: "C" } },
  { id: "m6", tags: { c1: "C", "a.b": "c.d" } },
];

async function ids(path: string, tenant: string): Promise<string[]> {
  const res = await col.req(path, { tenant });
  if (res.status === 204) return [];
  expect(res.status, path).toBe(200);
  return (await body(res)).map((d: { id: string }) => d.id).sort();
}

describe("tag query language in definition lookups (ExpressionTagQueryITest)", () => {
  const cases: [string, string[]][] = [
    ["a1 ~ '*'", ["m1", "m2", "m3", "m4", "m5"]],
    ["a1 ~ '*' AND b1 = 'B'", ["m1", "m2", "m4"]],
    ["a1 ~ '*' AND b1 != 'B'", ["m3", "m5"]],
    ["a1 IN ['xyz','abcd'] AND b1 ~ '*'", ["m2", "m3", "m5"]],
    ["c1 ~ '*' OR b1 != 'B'", ["m3", "m5", "m6"]],
    ["c1 ~ '*' OR (b1 != 'B' AND a1 = 'abcd')", ["m3", "m6"]],
    ["a1 NOT IN ['xyz', 'abcd']", ["m1", "m4"]],
    ["a1 NOT IN ['xyz','abcd'] OR b1 = 'B'", ["m1", "m2", "m4"]],
    ["a1 = 'd' OR ( a1 = 'ab' OR ( c1 ~ '*'))", ["m1", "m4", "m6"]],
    ["c1 = '100'", []],
    ["c1 = 100", []],
    ["a1 = d OR a1 = abcd", ["m1", "m3"]],
    ["c1 = '100' OR a1 = 'xyz' OR a1 IN ['abcd']", ["m2", "m3", "m5"]],
    ["c1 = '100' OR a1 = xyz OR a1 IN [abcd]", ["m2", "m3", "m5"]],
    ["A1 in ['xyz', 'abcd']", []],
    ["a2", ["m1", "m2"]],
    ["not a2", ["m3", "m4", "m5", "m6"]],
    ["a.b", ["m6"]],
    ["a.b = c.d", ["m6"]],
    ["a.b = 'c.d'", ["m6"]],
    ["a.b ~ 'c.*'", ["m6"]],
    ["a1 !~ 'ab.*'", ["m1", "m2", "m5"]],
    ["a1 !~ 'ab.+'", ["m1", "m2", "m4", "m5"]],
    // `=` compares exactly in this dialect, quoted or not: a quoted value is no pattern here.
    ["a1 = 'ab.*'", []],
  ];

  for (const { path, type } of TYPES) {
    it(`selects ${type} metrics by expression, on /metrics and on /${path}`, async () => {
      const tenant = `tq-${type}`;
      for (const m of METRICS) {
        const res = await col.req(`${M}/${path}`, { method: "POST", json: m, tenant });
        expect(res.status).toBe(201);
      }
      for (const [query, expected] of cases) {
        const q = encodeURIComponent(query);
        expect(await ids(`${M}/metrics?tags=${q}`, tenant), query).toEqual(expected);
        expect(await ids(`${M}/${path}?tags=${q}`, tenant), query).toEqual(expected);
      }
    });
  }

  it("still reads the 0.16 tag list (a value is a regex; several pairs are ANDed), which never parses as an expression", async () => {
    expect(await ids(`${M}/metrics?tags=${encodeURIComponent("a1:xyz|abcd,b1:C")}`, "tq-gauge")).toEqual(["m3", "m5"]);
    expect(await ids(`${M}/metrics?tags=a1:*`, "tq-gauge")).toEqual(["m1", "m2", "m3", "m4", "m5"]);
  });

  it("answers 400 for an expression that is neither valid query language nor a tag list", async () => {
    for (const bad of ["a1 = ", "(a1", "a1 IN [x", "a1 ~ '('", "a1 AND"]) {
      const res = await col.req(`${M}/metrics?tags=${encodeURIComponent(bad)}`, { tenant: "tq-gauge" });
      expect(res.status, bad).toBe(400);
      expect((await body(res)).errorMsg, bad).toBeTruthy();
    }
  });
});

describe("tag names, tag values and points by tags", () => {
  beforeAll(async () => {
    // TagsITest findTagNames (0.28): the same ids in every type.
    for (const { path } of TYPES) {
      await col.req(`${M}/${path}`, { method: "POST", json: { id: "N1", tags: { a1: "A/B", d1: "B:A" } }, tenant: "tn" });
      await col.req(`${M}/${path}`, { method: "POST", json: { id: "N2", tags: { a1: "a", d3: "B:A" } }, tenant: "tn" });
    }
  });

  it("GET /metrics/tags lists the tenant's tag names, filtered by a whole-name regex and by type", async () => {
    const all = await col.req(`${M}/metrics/tags`, { tenant: "tn" });
    expect(all.status).toBe(200);
    expect(await body(all)).toEqual(["a1", "d1", "d3"]);
    expect(await body(await col.req(`${M}/metrics/tags?filter=${encodeURIComponent("d.*")}`, { tenant: "tn" }))).toEqual(["d1", "d3"]);
    expect((await col.req(`${M}/metrics/tags?filter=${encodeURIComponent("e*")}`, { tenant: "tn" })).status).toBe(204);
    await col.req(`${M}/gauges/N2/tags/d3`, { method: "DELETE", tenant: "tn" });
    expect(await body(await col.req(`${M}/metrics/tags?filter=${encodeURIComponent("d.*")}&type=gauge`, { tenant: "tn" }))).toEqual(["d1"]);
    expect((await col.req(`${M}/metrics/tags?filter=${encodeURIComponent("(")}`, { tenant: "tn" })).status).toBe(400);
  });

  it("GET /{type}/tags/{tags} reads a tag list (the Grafana datasource asks key:*) or an expression, whose names are the keys", async () => {
    const list = await body(await col.req(`${M}/counters/tags/a1:*`, { tenant: "tn" }));
    expect(list.a1.sort()).toEqual(["A/B", "a"]);
    const expr = await body(await col.req(`${M}/counters/tags/${encodeURIComponent("a1 = 'a' OR d1")}`, { tenant: "tn" }));
    expect(expr.a1.sort()).toEqual(["A/B", "a"]);
    expect(expr.d1).toEqual(["B:A"]);
    const generic = await body(await col.req(`${M}/metrics/tags/${encodeURIComponent("d3")}?type=string`, { tenant: "tn" }));
    expect(generic).toEqual({ d3: ["B:A"] });
  });

  it("GET /{type}/tags/{tags}/raw returns the points of every selected metric as [{id, data}] (0.27+)", async () => {
    const now = Date.now();
    await col.req(`${M}/gauges/raw`, {
      method: "POST",
      tenant: "tn",
      json: [
        { id: "N1", data: [{ timestamp: now - 2000, value: 1 }, { timestamp: now - 1000, value: 2 }] },
        { id: "N2", data: [{ timestamp: now - 1500, value: 3 }] },
      ],
    });
    const res = await col.req(`${M}/gauges/tags/${encodeURIComponent("a1")}/raw?order=ASC`, { tenant: "tn" });
    expect(res.status).toBe(200);
    const named = (await body(res)).sort((x: { id: string }, y: { id: string }) => (x.id < y.id ? -1 : 1));
    expect(named).toEqual([
      { id: "N1", data: [{ timestamp: now - 2000, value: 1 }, { timestamp: now - 1000, value: 2 }] },
      { id: "N2", data: [{ timestamp: now - 1500, value: 3 }] },
    ]);
    const limited = await body(await col.req(`${M}/gauges/tags/d1:*/raw?limit=1`, { tenant: "tn" }));
    expect(limited).toEqual([{ id: "N1", data: [{ timestamp: now - 1000, value: 2 }] }]);
    expect((await col.req(`${M}/gauges/tags/nothing:*/raw`, { tenant: "tn" })).status).toBe(204);
  });
});

describe("id filter of GET /metrics", () => {
  beforeAll(async () => {
    for (const json of [
      { id: "N1", tags: { a1: "A" } },
      { id: "N2", tags: { a1: "A2" } },
      { id: "91c171ed-0294-44b3-bcdb-42253b58aa5a", tags: { c1: "C" } },
    ]) {
      await col.req(`${M}/gauges`, { method: "POST", json, tenant: "idf" });
    }
  });

  it("without tags, `id` lists exact ids separated by | (TagsITest findDefinitionsWithIdFiltering)", async () => {
    expect(await ids(`${M}/metrics?id=${encodeURIComponent("N1|N2")}&type=gauge`, "idf")).toEqual(["N1", "N2"]);
    expect(await ids(`${M}/metrics?id=91c171ed-0294-44b3-bcdb-42253b58aa5a&type=gauge`, "idf")).toEqual(["91c171ed-0294-44b3-bcdb-42253b58aa5a"]);
    // Upstream required a type here; every type is searched instead.
    expect(await ids(`${M}/metrics?id=N1`, "idf")).toEqual(["N1"]);
    expect(await ids(`${M}/metrics?id=${encodeURIComponent("N.")}&type=gauge`, "idf")).toEqual([]);
  });

  it("with tags, `id` is a regular expression over the whole id", async () => {
    expect(await ids(`${M}/metrics?tags=a1:*&type=gauge&id=.2`, "idf")).toEqual(["N2"]);
  });
});
