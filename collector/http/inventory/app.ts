import type { Hono } from "hono";
import { createServiceApp, errorResponse, requireTenant, Routes, type ServiceEnv } from "../../../src/http/service.ts";
import type { Logger } from "../../../src/log/logger.ts";
import type { Inventory } from "../../inventory/context.ts";
import { asApiError } from "../../inventory/failures.ts";
import { addBulkAndSyncRoutes } from "./bulk-sync-routes.ts";
import { addDeprecatedRoutes } from "./deprecated/routes.ts";
import { addEntityRoutes } from "./entity-routes.ts";
import { addEventsSocket } from "./events-socket.ts";
import { addStatusAndTenantRoutes } from "./tenant-routes.ts";
import { addTraversalRoutes } from "./traversal-routes.ts";

export interface InventoryAppDeps {
  inventory: Inventory;
  log?: Logger;
}

/** What `GET /` lists: the interface's endpoints and their methods. */
const ENDPOINTS = [
  { uri: "/", methods: ["GET"] },
  { uri: "/bulk", methods: ["POST"] },
  { uri: "/entity/{path}", methods: ["GET", "POST", "PUT", "DELETE"] },
  { uri: "/entity/{path}/treeHash", methods: ["GET"] },
  { uri: "/status", methods: ["GET"] },
  { uri: "/sync/{path}", methods: ["POST"] },
  { uri: "/tenant", methods: ["GET", "PUT"] },
  { uri: "/tenant/relationship", methods: ["POST"] },
  { uri: "/tenant/relationships", methods: ["GET"] },
  { uri: "/traversal/{traversal}", methods: ["GET"] },
  { uri: "/ws/events", methods: ["GET"] },
  { uri: "/deprecated", methods: ["GET"] },
];

/** The inventory interface (served under /svc/inventory and /hawkular/inventory). */
export function createInventoryApp(deps: InventoryAppDeps): Hono<ServiceEnv> {
  const app = createServiceApp();
  // The websocket carries its tenant in the query: clients cannot set headers on it.
  app.use("*", requireTenant({ exempt: (p) => p === "/ws/events" || p === "/status", message: (header) => `${header} HTTP header must be provided` }));
  addEventsSocket(app, deps.inventory.events);
  const r = new Routes(app);
  r.get("/", (c) => c.json({ documentation: "docs/inventory.md", endpoints: ENDPOINTS }));
  addStatusAndTenantRoutes(r, deps.inventory);
  addEntityRoutes(r, deps.inventory);
  addTraversalRoutes(r, deps.inventory);
  addBulkAndSyncRoutes(r, deps.inventory);
  addDeprecatedRoutes(r, deps.inventory);
  // Path and blueprint errors from the shared code are bad input, not server faults.
  app.onError((err, c) => errorResponse(asApiError(err), c, deps.log));
  return r.finish();
}
