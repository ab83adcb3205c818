import type { Hono } from "hono";
import * as z from "zod";
import { jsonOr204 } from "../../../src/http/json.ts";
import { createServiceApp, requireTenant, Routes, type ServiceEnv } from "../../../src/http/service.ts";
import { parseDuration } from "../../../src/metrics/duration.ts";
import { type FleetStores, fleetSummary } from "../../fleet/summary.ts";
import type { ReleaseService } from "../../fleet/releases.ts";
import type { RolloutEngine } from "../../fleet/rollout-engine.ts";
import type { FeedUpgrades } from "../../fleet/upgrades.ts";
import { BINARY_PATH } from "./paths.ts";
import { releaseRoutes } from "./releases-routes.ts";
import { rolloutRoutes } from "./rollouts-routes.ts";
import { parseQuery, q } from "../../../src/http/metrics/query-params.ts";
import { configRoutes } from "./config-routes.ts";
import { identityRoutes } from "./identity-routes.ts";

export interface FleetDeps extends FleetStores {
  now?: () => number;
  /** Agent releases and their rollouts (docs/fleet.md, "Upgrades"). */
  upgrades?: { releases: ReleaseService; rollouts: RolloutEngine; feeds: FeedUpgrades };
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
  const app = createServiceApp((p) => BINARY_PATH.test(p));
  // Releases are the collector's, not a tenant's (rollouts are a tenant's).
  app.use("*", requireTenant({ exempt: (p) => p === "/" || p === "/releases" || p.startsWith("/releases/") }));
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
        ...(deps.upgrades
          ? [
              { uri: "/upgrades", methods: ["GET"] },
              { uri: "/releases", methods: ["GET"] },
              { uri: "/releases/{version}", methods: ["GET", "DELETE"] },
              { uri: "/releases/{version}/binaries/{arch}", methods: ["GET", "PUT"] },
              { uri: "/rollouts", methods: ["GET", "POST"] },
              { uri: "/rollouts/{id}", methods: ["GET"] },
              { uri: "/rollouts/{id}/pause", methods: ["POST"] },
              { uri: "/rollouts/{id}/resume", methods: ["POST"] },
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
  if (deps.upgrades) {
    releaseRoutes(r, deps.upgrades.releases);
    rolloutRoutes(r, deps.upgrades.rollouts, deps.upgrades.feeds);
  }
  return r.finish();
}
