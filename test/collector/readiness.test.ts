import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { createRootApp } from "../../collector/http/root.ts";
import { createLogger } from "../../src/log/logger.ts";
import type { ServiceEnv } from "../../src/http/service.ts";

describe("readiness", () => {
  it("answers 503 with errorMsg on every interface until storage is ready, then serves", async () => {
    let ready = false;
    const svc = new Hono<ServiceEnv>();
    svc.get("/status", (c) => c.json({ ok: true }));
    const app = createRootApp({ metrics: svc }, { ready: () => ready }, createLogger("silent"));
    for (const root of ["/svc", "/hawkular"]) {
      const res = await app.request(`${root}/metrics/status`);
      expect(res.status).toBe(503);
      expect(((await res.json()) as { errorMsg: string }).errorMsg).toMatch(/not ready/);
    }
    expect((await app.request("/health")).status).toBe(503);
    ready = true;
    expect((await app.request("/svc/metrics/status")).status).toBe(200);
    expect((await app.request("/health")).status).toBe(200);
  });
});
