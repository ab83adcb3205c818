import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CanonicalPath } from "../../src/inventory/canonical-path.ts";
import { decodeId, encodeId, PathError } from "../../src/inventory/path-codec.ts";
import { resolvePath } from "../../src/inventory/path-resolve.ts";
import { body, startTestCollector, type TestCollector } from "../helpers/collector.ts";
import { expectStatus, type InventoryClient, inventoryClient } from "./support.ts";

describe("path segment encoding", () => {
  it("keeps unreserved characters and upper-case percent-encodes everything else as UTF-8", () => {
    expect(encodeId("aZ09-._~:@")).toBe("aZ09-._~:@");
    expect(encodeId("leg/1")).toBe("leg%2F1");
    expect(encodeId("leg 2")).toBe("leg%202");
    expect(encodeId("leg;3")).toBe("leg%3B3");
    expect(encodeId("100%")).toBe("100%25");
    expect(encodeId("é")).toBe("%C3%A9");
    expect(encodeId("a+b=c,d")).toBe("a%2Bb%3Dc%2Cd");
  });

  it("decodes either hex case and rejects malformed escapes", () => {
    expect(decodeId("leg%2f1")).toBe("leg/1");
    expect(decodeId("%C3%A9%20x")).toBe("é x");
    for (const bad of ["a%2", "a%zz", "%", "%C3"]) expect(() => decodeId(bad)).toThrow(PathError);
  });
});

describe("canonical paths", () => {
  it("formats, parses and tells parent, tenant and relative paths", () => {
    const p = CanonicalPath.parse("/t;acme/f;host%201/r;a%2Fb/m;cpu");
    expect(p.segments.map((s) => s.id)).toEqual(["acme", "host 1", "a/b", "cpu"]);
    expect(p.toString()).toBe("/t;acme/f;host%201/r;a%2Fb/m;cpu");
    expect(p.tenantless()).toBe("f;host%201/r;a%2Fb/m;cpu");
    expect(p.parent()!.toString()).toBe("/t;acme/f;host%201/r;a%2Fb");
    expect(p.tenantId).toBe("acme");
    expect(p.relativeTo(CanonicalPath.parse("/t;acme/f;host%201/rt;x"))).toBe("../r;a%2Fb/m;cpu");
  });

  it("accepts every valid progression of segment types", () => {
    const valid = [
      "/t;a/e;b/r;c/r;d/d;configuration",
      "/t;a/e;b/m;c",
      "/t;a/f;b/rt;c/ot;d/d;returnType",
      "/t;a/f;b/mt;c",
      "/t;a/f;b/r;c/m;d",
      "/t;a/rt;b/d;configurationSchema",
      "/t;a/mt;b",
      "/t;a/mp;b",
      "/rl;xyz",
    ];
    for (const v of valid) expect(CanonicalPath.parse(v).toString()).toBe(v);
  });

  it("rejects invalid progressions, unknown types and malformed segments", () => {
    const invalid = ["/e;x", "/t;a/r;b", "/t;a/e;b/f;c", "/t;a/f;b/e;c", "/t;a/m;b/r;c", "/t;a/x;b", "/t;a//e;b", "t;a", "/t;", "/t;a/e"];
    for (const v of invalid) expect(() => CanonicalPath.parse(v), v).toThrow(PathError);
  });

  it("resolves tenantless, relative and untyped paths", () => {
    const origin = CanonicalPath.parse("/t;T/f;F");
    expect(resolvePath("/rt;x", { tenant: "T" }).toString()).toBe("/t;T/rt;x");
    expect(resolvePath("/t;T/rt;x", { tenant: "T" }).toString()).toBe("/t;T/rt;x");
    expect(resolvePath("rt;x", { tenant: "T", origin }).toString()).toBe("/t;T/f;F/rt;x");
    expect(resolvePath("../rt;x", { tenant: "T", origin }).toString()).toBe("/t;T/rt;x");
    expect(resolvePath("x", { tenant: "T", origin, finalType: "rt" }).toString()).toBe("/t;T/f;F/rt;x");
    expect(resolvePath("a/b", { tenant: "T", origin, finalType: "r" }).toString()).toBe("/t;T/f;F/r;a/r;b");
    expect(() => resolvePath("x", { tenant: "T", origin })).toThrow(PathError);
    expect(() => resolvePath("rt;x", { tenant: "T" })).toThrow(PathError);
  });
});

describe("paths over HTTP", () => {
  let col: TestCollector;
  let api: InventoryClient;
  beforeAll(async () => {
    col = await startTestCollector();
    api = inventoryClient(col, "paths");
    await expectStatus(await api.post("/entity/feed", { id: "host 1" }), 201);
    await expectStatus(await api.post("/entity/f;host%201/resourceType", { id: "type/x" }), 201);
  });
  afterAll(async () => {
    await col.close();
  });

  it("round-trips ids that need encoding and answers Location with the encoded tenantless path", async () => {
    for (const id of ["leg/1", "leg 2", "leg;3", "per%cent", "ünï"]) {
      const res = await expectStatus(await api.post("/entity/f;host%201/resource", { id, resourceTypePath: "rt;type%2Fx" }), 201);
      const encoded = encodeId(id);
      expect(res.headers.get("Location")).toBe(`${col.url}/svc/inventory/entity/f;host%201/r;${encoded}`);
      const got = await body(await expectStatus(await api.get(`/entity/f;host%201/r;${encoded}`), 200));
      expect(got.id).toBe(id);
      expect(got.path).toBe(`/t;paths/f;host%201/r;${encoded}`);
      expect(got.type.path).toBe("/t;paths/f;host%201/rt;type%2Fx");
    }
  });

  it("accepts paths with or without the tenant segment", async () => {
    const a = await body(await expectStatus(await api.get("/entity/f;host%201"), 200));
    const b = await body(await expectStatus(await api.get("/entity/t;paths/f;host%201"), 200));
    expect(a).toEqual(b);
    await expectStatus(await api.post("/entity/t;paths/environment", { id: "env" }), 201);
    expect((await body(await expectStatus(await api.get("/entity/e;env"), 200))).path).toBe("/t;paths/e;env");
  });

  it("resolves relative, tenantless and full paths in blueprints against the parent", async () => {
    await expectStatus(await api.post("/entity/resourceType", { id: "global" }), 201);
    const forms: [string, string][] = [
      ["rt;type%2Fx", "/t;paths/f;host%201/rt;type%2Fx"],
      ["../rt;global", "/t;paths/rt;global"],
      ["/rt;global", "/t;paths/rt;global"],
      ["/t;paths/f;host%201/rt;type%2Fx", "/t;paths/f;host%201/rt;type%2Fx"],
      ["type%2Fx", "/t;paths/f;host%201/rt;type%2Fx"],
    ];
    for (const [i, [typePath, expected]] of forms.entries()) {
      const res = await expectStatus(await api.post("/entity/f;host%201/resource", { id: `rel${i}`, resourceTypePath: typePath }), 201);
      expect((await body(res)).type.path).toBe(expected);
    }
  });

  it("answers 400 with errorMsg for invalid paths and progressions", async () => {
    const bad = [
      api.get("/entity/x;y"),
      api.get("/entity/f;host%201/e;z"),
      api.get("/entity/f;a%zz"),
      api.get("/entity/f;"),
      api.post("/entity/f;host%201/environment", { id: "nope" }),
      api.post("/entity/f;host%201/resource", { id: "r", resourceTypePath: "e;wrong" }),
      api.get("/entity/f;host%201/treeHash/extra;x"),
    ];
    for (const res of await Promise.all(bad)) {
      expect(res.status).toBe(400);
      expect(typeof (await body(res)).errorMsg).toBe("string");
    }
  });

  it("does not let a path name another tenant's entities", async () => {
    const other = inventoryClient(col, "other");
    await expectStatus(await other.post("/entity/feed", { id: "secret" }), 201);
    expect((await api.get("/entity/t;other/f;secret")).status).toBe(404);
    expect((await api.post("/entity/t;other/f;secret/resourceType", { id: "x" })).status).toBe(404);
    expect((await other.get("/entity/f;secret")).status).toBe(200);
  });
});
