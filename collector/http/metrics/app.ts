import { createServiceApp, requireTenant, Routes } from "../../../src/http/service.ts";

export interface MetricsAppDeps {
  version: string;
}

const TENANT_FREE = /^\/(tenants|db|status|ping)?(\/.*)?$/;

export function createMetricsApp(deps: MetricsAppDeps) {
  const app = createServiceApp();
  app.use("*", requireTenant({ exempt: (p) => p === "/" || TENANT_FREE.test(p) }));
  const r = new Routes(app);
  r.get("/", (c) => c.json({ name: "Hawkular-Metrics", "Implementation-Version": deps.version, "Built-From-Git-SHA1": "outpost" }));
  r.get("/status", (c) =>
    c.json({ MetricsService: "STARTED", "Implementation-Version": deps.version, "Built-From-Git-SHA1": "outpost" }),
  );
  const ping = (c: Parameters<Parameters<typeof r.get>[1]>[0]) => c.json({ value: new Date().toString() });
  r.get("/ping", ping);
  r.post("/ping", ping);
  return r.finish();
}
