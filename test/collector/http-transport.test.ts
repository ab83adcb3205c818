import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { corsOrigins } from "../../collector/server.ts";
import { body, startTestCollector, type TestCollector } from "../helpers/collector.ts";

/** gzip responses and CORS, as Hawkular Metrics 0.2x served them (CORSITest, assertContentEncoding). */

const M = "/svc/metrics";
const ORIGIN = "http://test.hawkular.org";
const DEFAULT_HEADERS = "origin,accept,content-type,hawkular-tenant";

describe("gzip", () => {
  let col: TestCollector;
  beforeAll(async () => {
    col = await startTestCollector();
    const now = Date.now();
    await col.req(`${M}/gauges/z/raw`, { method: "POST", json: Array.from({ length: 500 }, (_, i) => ({ timestamp: now - i * 1000, value: i })) });
  });
  afterAll(async () => {
    await col.close();
  });

  it("compresses JSON answers when the client accepts gzip, and only then", async () => {
    const gz = await col.req(`${M}/gauges/z/raw`, { headers: { "Accept-Encoding": "gzip" }, decompress: false } as RequestInit);
    expect(gz.status).toBe(200);
    expect(gz.headers.get("content-encoding")).toBe("gzip");
    expect(gz.headers.get("vary")).toContain("Accept-Encoding");
    const packed = Buffer.from(await gz.arrayBuffer());
    const points = JSON.parse(gunzipSync(packed).toString("utf8"));
    expect(points).toHaveLength(500);
    const plainText = JSON.stringify(points);
    expect(packed.length).toBeLessThan(plainText.length / 3);

    const plain = await col.req(`${M}/gauges/z/raw`, { headers: { "Accept-Encoding": "identity" }, decompress: false } as RequestInit);
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect(await plain.json()).toEqual(points);
    const refused = await col.req(`${M}/gauges/z/raw`, { headers: { "Accept-Encoding": "gzip;q=0, identity" }, decompress: false } as RequestInit);
    expect(refused.headers.get("content-encoding")).toBeNull();
  });

  it("small answers too, as upstream (GaugesITest asserts gzip on every read)", async () => {
    const res = await col.req(`${M}/gauges/z`, { headers: { "Accept-Encoding": "gzip, deflate" }, decompress: false } as RequestInit);
    expect(res.headers.get("content-encoding")).toBe("gzip");
    expect(JSON.parse(gunzipSync(Buffer.from(await res.arrayBuffer())).toString("utf8")).id).toBe("z");
  });
});

describe("CORS with configured origins and extra headers", () => {
  let col: TestCollector;
  beforeAll(async () => {
    col = await startTestCollector({ "cors-origins": [ORIGIN], "cors-allow-headers": ["test-header"] });
  });
  afterAll(async () => {
    await col.close();
  });

  const expectCorsHeaders = (res: Response, origin: string) => {
    expect(res.headers.get("access-control-allow-origin")).toBe(origin);
    expect(res.headers.get("access-control-allow-credentials")).toBe("true");
    expect(res.headers.get("access-control-allow-methods")).toBe("GET, POST, PUT, PATCH, DELETE, OPTIONS, HEAD");
    expect(res.headers.get("access-control-allow-headers")).toMatch(new RegExp(`^${DEFAULT_HEADERS},.*test-header$`));
    expect(res.headers.get("access-control-max-age")).toBe(String(72 * 60 * 60));
  };

  it("answers a preflight from an allowed origin 200 with no body, before any route (no tenant needed)", async () => {
    const res = await col.req(`${M}/ping`, {
      method: "OPTIONS",
      tenant: null,
      headers: { Origin: ORIGIN, "Access-Control-Request-Method": "POST", "Access-Control-Allow-Headers": "test-header" },
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("");
    expectCorsHeaders(res, ORIGIN);
  });

  it("admits subdomains of an allowed origin, with the same scheme and port", async () => {
    const sub = "http://tester.test.hawkular.org";
    const res = await col.req(`${M}/gauges/test/raw`, { method: "OPTIONS", headers: { Origin: sub, "Access-Control-Request-Method": "GET" } });
    expect(res.status).toBe(200);
    expectCorsHeaders(res, sub);
  });

  it("answers 400 to a request from another origin, whatever it asks (the route is never reached)", async () => {
    for (const origin of ["*", "https://test.hawkular.org", "http://test.hawkular.org:8080", "http://evil.example", "null"]) {
      const pre = await col.req(`${M}/gauges/test/raw`, { method: "OPTIONS", headers: { Origin: origin, "Access-Control-Request-Method": "GET" } });
      expect(pre.status, origin).toBe(400);
    }
    const before = await col.req(`${M}/gauges`, { method: "POST", json: { id: "cors.x" }, headers: { Origin: "https://test.hawkular.org" } });
    expect(before.status).toBe(400);
    expect((await body(before)).errorMsg).toContain("https://test.hawkular.org");
    // The write was refused before it happened.
    expect((await col.req(`${M}/gauges/cors.x`)).status).toBe(204);
  });

  it("adds the CORS headers to the answers of allowed requests (CORSITest testPostQueryReturnsHeaders)", async () => {
    const now = Date.now();
    await col.req(`${M}/gauges/raw`, { method: "POST", json: [{ id: "m12", data: [{ timestamp: now - 60_000, value: 2.1 }, { timestamp: now, value: 2.2 }] }] });
    const res = await col.req(`${M}/gauges/raw/query`, { method: "POST", json: { ids: ["m12"] }, headers: { Origin: ORIGIN } });
    expect(res.status).toBe(200);
    expect(await body(res)).toEqual([{ id: "m12", data: [{ timestamp: now, value: 2.2 }, { timestamp: now - 60_000, value: 2.1 }] }]);
    expectCorsHeaders(res, ORIGIN);
  });

  it("lets same-origin requests through: they are not cross-origin", async () => {
    const res = await col.req(`${M}/gauges`, { method: "POST", json: { id: "cors.same" }, headers: { Origin: col.url } });
    expect(res.status).toBe(201);
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe("CORS defaults", () => {
  it("without --cors-origins: no other origin, with an auth file or without", () => {
    expect(corsOrigins({})).toEqual([]);
    expect(corsOrigins({ "auth-file": "/etc/outpost/auth" })).toEqual([]);
    expect(corsOrigins({ "auth-file": "/etc/outpost/auth", "cors-origins": ["https://grafana.example"] })).toEqual(["https://grafana.example"]);
  });

  it("by default a page of another origin gets 400 and no CORS headers, before any route; the collector's own pages and clients that send no Origin pass", async () => {
    const col = await startTestCollector();
    try {
      const res = await col.req(`${M}/metrics`, { headers: { Origin: "http://grafana.local" } });
      expect(res.status).toBe(400);
      expect(res.headers.get("access-control-allow-origin")).toBeNull();
      const write = await col.req(`${M}/gauges/cors.evil/raw`, { method: "POST", body: '[{"timestamp":1,"value":1}]', headers: { Origin: "http://evil.example", "Content-Type": "text/plain" } });
      expect(write.status).toBe(400);
      expect((await col.req(`${M}/gauges/cors.evil/raw`)).status).toBe(204);
      expect((await col.req(`${M}/metrics`, { headers: { Origin: col.url } })).status).toBe(204);
      expect((await col.req(`${M}/metrics`)).status).toBe(204);
    } finally {
      await col.close();
    }
  });

  it("`*` admits any origin, answered `*` without credentials (never reflected with them)", async () => {
    const col = await startTestCollector({ "cors-origins": ["*"] });
    try {
      const res = await col.req(`${M}/metrics`, { headers: { Origin: "http://grafana.local:3000" } });
      expect(res.status).toBe(204);
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
      expect(res.headers.get("access-control-allow-credentials")).toBeNull();
    } finally {
      await col.close();
    }
  });
});
