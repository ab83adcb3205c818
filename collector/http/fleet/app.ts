import type { Hono } from "hono";
import * as z from "zod";
import { jsonOr204 } from "../../../src/http/json.ts";
import { createServiceApp, requireTenant, Routes, type ServiceEnv } from "../../../src/http/service.ts";
import { parseDuration } from "../../../src/metrics/duration.ts";
import { type FleetStores, fleetSummary } from "../../fleet/summary.ts";
import { parseQuery, q } from "../../../src/http/metrics/query-params.ts";
import { configRoutes } from "./config-routes.ts";
import { identityRoutes } from "./identity-routes.ts";

export interface FleetDeps extends FleetStores {
  now?: () => number;
}

const DAY_MS = 86_400_000;

const feedsQuery = z
  .object({
    cpuRange: z
      .string()
      .optional()
      .transform((s) => (s === undefined ? 3_600_000 : parseDuration(s)))
      .refine((ms) => ms >= 60_000 && ms <= 7 * DAY_MS, "cpuRange must be between 1mn and 7d"),
    cpuBuckets: q
      .int32("cpuBuckets")
      .optional()
      .transform((n) => n ?? 30)
      .refine((n) => n >= 1 && n <= 500, "cpuBuckets must be between 1 and 500"),
  })
  .strict();

/**
 * The fleet interface (/svc/fleet): one read for the console's fleet page, from what the
 * collector already stores (presence, the agents' own metrics, CPU, inventory feeds), and fleet
 * management (docs/fleet.md): agent identities and remote configuration.
 */
export function createFleetApp(deps: FleetDeps): Hono<ServiceEnv> {
  const app = createServiceApp();
  app.use("*", requireTenant({ exempt: (p) => p === "/" }));
  const r = new Routes(app);
  r.get("/", (c) =>
    c.json({
      documentation: ["docs/console.md", "docs/fleet.md"],
      endpoints: [
        { uri: "/feeds", methods: ["GET"], query: ["cpuRange", "cpuBuckets"] },
        ...(deps.fleet
          ? [
              { uri: "/conflicts", methods: ["GET"] },
              { uri: "/feeds/{feed}/identity", methods: ["GET", "PUT", "DELETE"] },
              { uri: "/feeds/{feed}/conflicts[/{instance}]", methods: ["DELETE"] },
              { uri: "/feeds/{feed}/config", methods: ["GET"] },
              { uri: "/config/revisions", methods: ["GET", "POST"], query: ["limit"] },
              { uri: "/config/revisions/{revision}", methods: ["GET"] },
              { uri: "/config/check", methods: ["POST"] },
              { uri: "/config/feeds", methods: ["GET"] },
            ]
          : []),
      ],
    }),
  );
  r.get("/feeds", async (c) => {
    const p = parseQuery(c, feedsQuery);
    const now = (deps.now ?? Date.now)();
    return jsonOr204(c, await fleetSummary(deps, c.get("tenant"), { now, cpuRangeMs: p.cpuRange, cpuBuckets: p.cpuBuckets }));
  });
  if (deps.fleet) {
    identityRoutes(r, deps.fleet);
    configRoutes(r, deps.fleet);
  }
  return r.finish();
}
