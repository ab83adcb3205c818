import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { body, startTestCollector, type TestCollector } from "../helpers/collector.ts";

let col: TestCollector;
beforeAll(async () => {
  col = await startTestCollector();
});
afterAll(async () => {
  await col.close();
});

describe("HTTP conventions", () => {
  it("GET /status needs no tenant and reports a version clients accept", async () => {
    const res = await col.req("/svc/metrics/status", { tenant: null });
    expect(res.status).toBe(200);
    const b = await body(res);
    expect(b.MetricsService).toBe("STARTED");
    const [maj, min] = String(b["Implementation-Version"]).split(".").map(Number);
    expect(maj! > 0 || min! >= 16).toBe(true);
  });

  it("serves the same interface under /hawkular and accepts the Hawkular-Tenant header", async () => {
    const res = await col.req("/hawkular/metrics/ping", { tenant: null, headers: { "Hawkular-Tenant": "x" } });
    expect(res.status).toBe(200);
    expect(typeof (await body(res)).value).toBe("string");
  });

  it("answers 400 with errorMsg when the tenant header is missing or blank", async () => {
    for (const headers of [{}, { "Svc-Tenant": "  " }] as Record<string, string>[]) {
      const res = await col.req("/svc/metrics/gauges", { tenant: null, headers });
      expect(res.status).toBe(400);
      expect((await body(res)).errorMsg).toMatch(/Tenant/);
    }
  });

  it("answers 405 for a method the resource does not support", async () => {
    const res = await col.req("/svc/metrics/status", { method: "DELETE" });
    expect(res.status).toBe(405);
    expect((await body(res)).errorMsg).toMatch(/DELETE/);
  });

  it("answers 404 with errorMsg for an unknown path", async () => {
    const res = await col.req("/svc/nothing-here");
    expect(res.status).toBe(404);
    expect((await body(res)).errorMsg).toBeTruthy();
  });

  it("answers 406 when the client accepts only text/plain", async () => {
    const res = await col.req("/svc/metrics/status", { headers: { Accept: "text/plain" } });
    expect(res.status).toBe(406);
  });

  it("answers 415 for a body declared as text/plain", async () => {
    const res = await col.req("/svc/metrics/ping", { method: "POST", body: "x", headers: { "Content-Type": "text/plain" } });
    expect(res.status).toBe(415);
  });

  it("answers CORS preflights for the browser origins it is given", async () => {
    const grafana = await startTestCollector({ "cors-origins": ["http://grafana.local"] });
    try {
      const res = await grafana.req("/svc/metrics/gauges", {
        method: "OPTIONS",
        headers: { Origin: "http://grafana.local", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "hawkular-tenant" },
      });
      // As upstream: the preflight is answered 200 and the listed origin echoed (with credentials allowed).
      expect(res.status).toBe(200);
      expect(res.headers.get("access-control-allow-origin")).toBe("http://grafana.local");
      expect(res.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("hawkular-tenant");
    } finally {
      await grafana.close();
    }
  });
});
