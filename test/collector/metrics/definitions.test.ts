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

describe("metric definitions", () => {
  it("creates a gauge: 201 with an absolute Location, then reads it back with the default retention", async () => {
    const res = await col.req(`${M}/gauges`, { method: "POST", json: { id: "def.g1", tags: { host: "a", env: "prod" } } });
    expect(res.status).toBe(201);
    expect(res.headers.get("location")).toBe(`${col.url}${M}/gauges/def.g1`);
    const got = await col.req(`${M}/gauges/def.g1`);
    expect(got.status).toBe(200);
    expect(await body(got)).toEqual({ tenantId: "t1", id: "def.g1", type: "gauge", tags: { host: "a", env: "prod" }, dataRetention: 7 });
  });

  it("uses the /hawkular root in Location when the request came in there", async () => {
    const res = await col.req("/hawkular/metrics/counters", { method: "POST", json: { id: "def.c-loc" } });
    expect(res.status).toBe(201);
    expect(res.headers.get("location")).toBe(`${col.url}/hawkular/metrics/counters/def.c-loc`);
  });

  it("answers 409 on a duplicate create, and replaces tags and retention with overwrite=true", async () => {
    await col.req(`${M}/counters`, { method: "POST", json: { id: "def.dup", tags: { a: "1" } } });
    const again = await col.req(`${M}/counters`, { method: "POST", json: { id: "def.dup" } });
    expect(again.status).toBe(409);
    expect((await body(again)).errorMsg).toContain("def.dup");
    const over = await col.req(`${M}/counters?overwrite=true`, { method: "POST", json: { id: "def.dup", tags: { b: "2" }, dataRetention: 3 } });
    expect(over.status).toBe(201);
    const def = await body(await col.req(`${M}/counters/def.dup`));
    expect(def.tags).toEqual({ b: "2" });
    expect(def.dataRetention).toBe(3);
  });

  it("rejects bad definitions with 400 and an errorMsg", async () => {
    const cases: [string, unknown][] = [
      [`${M}/gauges`, { tags: { a: "b" } }], // no id
      [`${M}/gauges`, { id: "" }],
      [`${M}/gauges`, { id: "x", type: "counter" }], // type does not match the family
      [`${M}/gauges`, { id: "x", dataRetention: -1 }],
      [`${M}/metrics`, { id: "x" }], // mixed create needs a type
      [`${M}/metrics`, { id: "x", type: "counter_rate" }],
    ];
    for (const [path, json] of cases) {
      const res = await col.req(path, { method: "POST", json });
      expect(res.status, JSON.stringify(json)).toBe(400);
      expect(typeof (await body(res)).errorMsg).toBe("string");
    }
    const empty = await col.req(`${M}/gauges`, { method: "POST", body: "", headers: { "Content-Type": "application/json" } });
    expect(empty.status).toBe(400);
    const broken = await col.req(`${M}/gauges`, { method: "POST", body: "{id:", headers: { "Content-Type": "application/json" } });
    expect(broken.status).toBe(400);
  });

  it("POST /metrics creates by type with the plural Location", async () => {
    const res = await col.req(`${M}/metrics`, { method: "POST", json: { id: "def.avail", type: "availability" } });
    expect(res.status).toBe(201);
    expect(res.headers.get("location")).toBe(`${col.url}${M}/availability/def.avail`);
    const s = await col.req(`${M}/metrics`, { method: "POST", json: { id: "def.str", type: "string" } });
    expect(s.headers.get("location")).toBe(`${col.url}${M}/strings/def.str`);
  });

  it("answers 204 for a metric that does not exist", async () => {
    const res = await col.req(`${M}/gauges/def.nothing`);
    expect(res.status).toBe(204);
    expect(await res.text()).toBe("");
  });

  it("creates a metric implicitly on write and reports min/max timestamps only once data exists", async () => {
    const created = await body(await col.req(`${M}/gauges/def.g1`));
    expect(created.minTimestamp).toBeUndefined();
    const now = Date.now();
    const w = await col.req(`${M}/gauges/def.implicit/raw`, {
      method: "POST",
      json: [
        { timestamp: now - 5000, value: 1 },
        { timestamp: now - 1000, value: 2 },
      ],
    });
    expect(w.status).toBe(200);
    const def = await body(await col.req(`${M}/gauges/def.implicit`));
    expect(def).toEqual({ tenantId: "t1", id: "def.implicit", type: "gauge", dataRetention: 7, minTimestamp: now - 5000, maxTimestamp: now - 1000 });
    const list = await body(await col.req(`${M}/gauges`));
    expect(list.map((d: { id: string }) => d.id)).toContain("def.implicit");
  });
});

describe("finding definitions by tags", () => {
  beforeAll(async () => {
    const defs = [
      { id: "find.a", tags: { dc: "east", role: "web", tier: "1" } },
      { id: "find.b", tags: { dc: "west", role: "web" } },
      { id: "find.c", tags: { dc: "east", role: "db" } },
      { id: "find.d", tags: { other: "x" } },
    ];
    for (const json of defs) await col.req(`${M}/gauges`, { method: "POST", json, tenant: "tags" });
    await col.req(`${M}/counters`, { method: "POST", json: { id: "find.cnt", tags: { dc: "east" } }, tenant: "tags" });
  });
  const ids = async (path: string) => {
    const res = await col.req(path, { tenant: "tags" });
    return res.status === 204 ? [] : (await body(res)).map((d: { id: string }) => d.id).sort();
  };

  it("matches exact values, regexes, any value and negations; several tags are ANDed", async () => {
    expect(await ids(`${M}/gauges?tags=dc:east`)).toEqual(["find.a", "find.c"]);
    expect(await ids(`${M}/gauges?tags=dc:east|west`)).toEqual(["find.a", "find.b", "find.c"]);
    expect(await ids(`${M}/gauges?tags=dc:e.*`)).toEqual(["find.a", "find.c"]);
    expect(await ids(`${M}/gauges?tags=role:*`)).toEqual(["find.a", "find.b", "find.c"]);
    expect(await ids(`${M}/gauges?tags=dc:!east`)).toEqual(["find.b"]);
    expect(await ids(`${M}/gauges?tags=dc:east,role:web`)).toEqual(["find.a"]);
    // The regex must match the whole value.
    expect(await ids(`${M}/gauges?tags=dc:eas`)).toEqual([]);
  });

  it("answers 204 when nothing matches and 400 for an invalid tag list or regex", async () => {
    const none = await col.req(`${M}/gauges?tags=dc:north`, { tenant: "tags" });
    expect(none.status).toBe(204);
    for (const bad of [",dc:east", "dc:east,,role:web", ":x", "a1:**", "dc = ", "dc ~ '('"]) {
      const res = await col.req(`${M}/gauges?tags=${encodeURIComponent(bad)}`, { tenant: "tags" });
      expect(res.status, bad).toBe(400);
      expect((await body(res)).errorMsg).toBeTruthy();
    }
  });

  it("GET /metrics lists across types, filtered by type, tags and id", async () => {
    expect(await ids(`${M}/metrics?tags=dc:east`)).toEqual(["find.a", "find.c", "find.cnt"]);
    expect(await ids(`${M}/metrics?type=counter`)).toEqual(["find.cnt"]);
    expect(await ids(`${M}/metrics?tags=dc:east&id=find\\.[ab]`)).toEqual(["find.a"]);
    const bad = await col.req(`${M}/metrics?type=counter_rate`, { tenant: "tags" });
    expect(bad.status).toBe(400);
    expect((await body(bad)).errorMsg).toBe("Incorrect type param counter_rate");
  });

  it("returns the distinct tag values of matching metrics", async () => {
    const res = await col.req(`${M}/gauges/tags/dc:*,role:*`, { tenant: "tags" });
    expect(res.status).toBe(200);
    const values = await body(res);
    expect(Object.keys(values).sort()).toEqual(["dc", "role"]);
    expect(values.dc.sort()).toEqual(["east", "west"]);
    expect(values.role.sort()).toEqual(["db", "web"]);
    const all = await body(await col.req(`${M}/metrics/tags/dc:*`, { tenant: "tags" }));
    expect(all.dc.sort()).toEqual(["east", "west"]);
    const none = await col.req(`${M}/gauges/tags/missing:*`, { tenant: "tags" });
    expect(none.status).toBe(204);
  });

  it("decodes percent-encoded characters in tag values", async () => {
    await col.req(`${M}/gauges`, { method: "POST", json: { id: "find.enc", tags: { path: "a,b:c/d" } }, tenant: "tags" });
    expect(await ids(`${M}/gauges?tags=path:a%252Cb%253Ac%252Fd`)).toEqual(["find.enc"]);
  });
});

describe("metric tags", () => {
  it("reads, merges and deletes tags", async () => {
    await col.req(`${M}/gauges`, { method: "POST", json: { id: "tg.m", tags: { a: "1", b: "2" } }, tenant: "tg" });
    const put = await col.req(`${M}/gauges/tg.m/tags`, { method: "PUT", json: { b: "20", c: "3" }, tenant: "tg" });
    expect(put.status).toBe(200);
    expect(await body(await col.req(`${M}/gauges/tg.m/tags`, { tenant: "tg" }))).toEqual({ a: "1", b: "20", c: "3" });
    const del = await col.req(`${M}/gauges/tg.m/tags/a,c:ignored`, { method: "DELETE", tenant: "tg" });
    expect(del.status).toBe(200);
    expect(await body(await col.req(`${M}/gauges/tg.m/tags`, { tenant: "tg" }))).toEqual({ b: "20" });
  });

  it("keeps spaces in tag names and values verbatim", async () => {
    await col.req(`${M}/counters/tg.sp/tags`, { method: "PUT", json: { "  a  1   ": "   A" }, tenant: "tg" });
    expect(await body(await col.req(`${M}/counters/tg.sp/tags`, { tenant: "tg" }))).toEqual({ "  a  1   ": "   A" });
  });

  it("answers 204 for a metric without tags and 400 for bad tag input", async () => {
    expect((await col.req(`${M}/gauges/tg.none/tags`, { tenant: "tg" })).status).toBe(204);
    expect((await col.req(`${M}/gauges/tg.m/tags`, { method: "PUT", json: { "": "x" }, tenant: "tg" })).status).toBe(400);
    expect((await col.req(`${M}/gauges/tg.m/tags`, { method: "PUT", body: "", tenant: "tg", headers: { "Content-Type": "application/json" } })).status).toBe(400);
    expect((await col.req(`${M}/gauges/tg.m/tags/${encodeURIComponent(",")}`, { method: "DELETE", tenant: "tg" })).status).toBe(400);
    expect((await col.req(`${M}/gauges/tg.m/tags/${encodeURIComponent(":5")}`, { method: "DELETE", tenant: "tg" })).status).toBe(400);
  });

  it("answers 405 for POST to a tags resource", async () => {
    const res = await col.req(`${M}/gauges/tg.m/tags`, { method: "POST", json: { a: "b" }, tenant: "tg" });
    expect(res.status).toBe(405);
  });
});

describe("tenants", () => {
  it("creates tenants with retentions; duplicate → 409; overwrite replaces; GET lists them", async () => {
    const res = await col.req(`${M}/tenants`, { method: "POST", json: { id: "ten.a", retentions: { gauge: 45, counter: 13 } }, tenant: null });
    expect(res.status).toBe(201);
    expect(res.headers.get("location")).toBe(`${col.url}${M}/tenants`);
    const dup = await col.req(`${M}/tenants`, { method: "POST", json: { id: "ten.a" }, tenant: null });
    expect(dup.status).toBe(409);
    expect((await body(dup)).errorMsg).toBe("A tenant with id [ten.a] already exists");
    const over = await col.req(`${M}/tenants?overwrite=true`, { method: "POST", json: { id: "ten.a", retentions: { availability: 30 } }, tenant: null });
    expect(over.status).toBe(201);
    const list = await body(await col.req(`${M}/tenants`, { tenant: null }));
    expect(list.find((t: { id: string }) => t.id === "ten.a")).toEqual({ id: "ten.a", retentions: { availability: 30 } });
  });

  it("knows tenants implicitly once data is written", async () => {
    await col.req(`${M}/gauges/x/raw`, { method: "POST", json: [{ timestamp: Date.now(), value: 1 }], tenant: "ten.implicit" });
    const list = await body(await col.req(`${M}/tenants`, { tenant: null }));
    expect(list.map((t: { id: string }) => t.id)).toContain("ten.implicit");
  });

  it("rejects tenants without id or with unknown retention types", async () => {
    for (const json of [{}, { id: "" }, { id: "x", retentions: { bogus: 3 } }, { id: "x", retentions: { gauge: 0 } }]) {
      const res = await col.req(`${M}/tenants`, { method: "POST", json, tenant: null });
      expect(res.status, JSON.stringify(json)).toBe(400);
    }
  });

  it("keeps points written now whatever their timestamps: the tenant's retention per type counts from the write", async () => {
    await col.req(`${M}/tenants`, { method: "POST", json: { id: "ten.ret", retentions: { gauge: 1 } }, tenant: null });
    const now = Date.now();
    const pts = [
      { timestamp: now - 2 * 86_400_000, value: 1 },
      { timestamp: now - 3_600_000, value: 2 },
    ];
    await col.req(`${M}/gauges/r/raw`, { method: "POST", json: pts, tenant: "ten.ret" });
    await col.req(`${M}/counters/r/raw`, { method: "POST", json: pts, tenant: "ten.ret" });
    const start = now - 3 * 86_400_000;
    const g = await body(await col.req(`${M}/gauges/r/raw?start=${start}`, { tenant: "ten.ret" }));
    expect(g.map((p: { value: number }) => p.value)).toEqual([2, 1]);
    const c = await body(await col.req(`${M}/counters/r/raw?start=${start}`, { tenant: "ten.ret" }));
    expect(c.map((p: { value: number }) => p.value)).toEqual([2, 1]);
  });
});

describe("tenant isolation", () => {
  it("never shows one tenant's definitions, tags or points to another", async () => {
    const now = Date.now();
    await col.req(`${M}/gauges/iso.m/raw`, { method: "POST", json: [{ timestamp: now, value: 42 }], tenant: "iso-a" });
    await col.req(`${M}/gauges/iso.m/tags`, { method: "PUT", json: { secret: "yes" }, tenant: "iso-a" });
    expect((await col.req(`${M}/gauges/iso.m`, { tenant: "iso-b" })).status).toBe(204);
    expect((await col.req(`${M}/gauges/iso.m/raw`, { tenant: "iso-b" })).status).toBe(204);
    expect((await col.req(`${M}/gauges?tags=secret:*`, { tenant: "iso-b" })).status).toBe(204);
    expect((await col.req(`${M}/gauges/iso.m/tags`, { tenant: "iso-b" })).status).toBe(204);
    expect((await col.req(`${M}/metrics`, { tenant: "iso-b" })).status).toBe(204);
    const own = await body(await col.req(`${M}/gauges/iso.m/raw`, { tenant: "iso-a" }));
    expect(own).toEqual([{ timestamp: now, value: 42 }]);
  });
});

describe("user regular expressions over HTTP", () => {
  it("answer a crafted id or tag pattern over crafted ids at once (linear-time matching), and refuse an over-long one", async () => {
    for (let i = 0; i < 20; i++) {
      const id = `${"a".repeat(30 + i)}!`;
      const res = await col.req(`${M}/gauges`, { method: "POST", json: { id, tags: { crafted: id } } });
      expect(res.status).toBe(201);
    }
    const evil = encodeURIComponent("(a+)+$");
    const byId = await col.req(`${M}/metrics?tags=crafted:*&id=${evil}`);
    expect(byId.status).toBe(204);
    const byTag = await col.req(`${M}/gauges?tags=crafted:${evil}`);
    expect(byTag.status).toBe(204);
    const long = await col.req(`${M}/gauges?tags=crafted:${"a".repeat(1025)}`);
    expect(long.status).toBe(400);
    expect((await body(long)).errorMsg).toMatch(/at most 1024 are accepted/);
  });
});
