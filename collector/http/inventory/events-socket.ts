import type { Hono, MiddlewareHandler } from "hono";
import { upgradeWebSocket } from "hono/bun";
import { authorizeTenant } from "../../../src/http/access.ts";
import { ApiError } from "../../../src/http/errors.ts";
import { type ServiceEnv, tenantHeader } from "../../../src/http/service.ts";
import { type SegmentCode, segmentTypeFromName } from "../../../src/inventory/segment-types.ts";
import { INVENTORY_ACTIONS, type InventoryAction, type InventoryEvents } from "../../events/inventory-events.ts";

interface Subscription {
  tenant: string;
  type: SegmentCode;
  action: InventoryAction | "copied";
}

/** Reads `tenantId`, `type` (default resource) and `action` (default created); a string is the error. */
export function subscriptionOf(q: { tenantId?: string; type?: string; action?: string }): Subscription | string {
  if (!q.tenantId) return "Provide the tenantId query parameter.";
  const type = segmentTypeFromName(q.type ?? "resource");
  if (!type) return `Unknown type '${q.type}'. Use an entity type such as resource, resourceType, feed or relationship.`;
  const action = (q.action ?? "created").toLowerCase();
  // Upstream also accepts `copied`; nothing is ever copied here, so such a socket just stays quiet.
  if (!(INVENTORY_ACTIONS as readonly string[]).includes(action) && action !== "copied") {
    return `Unknown action '${q.action}'. Use one of ${INVENTORY_ACTIONS.join(", ")}.`;
  }
  return { tenant: q.tenantId, type, action: action as InventoryAction | "copied" };
}

/**
 * The socket's tenant, checked before the upgrade: the tenant header, or the `tenantId` query
 * (browsers cannot set headers on a websocket), or the one tenant of the credential. When both
 * header and query name one they must agree, and the credential must hold it (403): the query
 * alone must not open another tenant's events.
 */
const socketTenant: MiddlewareHandler<ServiceEnv> = async (c, next) => {
  const header = tenantHeader(c);
  const query = c.req.query("tenantId")?.trim() || undefined;
  if (header !== undefined && query !== undefined && header !== query) {
    throw new ApiError(400, `tenantId '${query}' is not the tenant of the request's tenant header ('${header}')`);
  }
  const access = c.get("access");
  const only = access && !access.admin && access.tenants.size === 1 ? [...access.tenants][0] : undefined;
  const tenant = header ?? query ?? only;
  if (tenant !== undefined) {
    authorizeTenant(c, tenant);
    c.set("tenant", tenant);
  }
  await next();
};

/**
 * `WS /ws/events?tenantId=&type=&action=`: one text frame with the JSON of each matching change.
 * Bad parameters get one text frame with the reason, then the socket is closed.
 */
export function addEventsSocket(app: Hono<ServiceEnv>, events: InventoryEvents): void {
  app.get(
    "/ws/events",
    socketTenant,
    upgradeWebSocket((c) => {
      const sub = subscriptionOf({ tenantId: c.get("tenant"), type: c.req.query("type"), action: c.req.query("action") });
      let unsubscribe: (() => void) | undefined;
      const revoked = c.get("access")?.revoked;
      return {
        onOpen(_evt, ws) {
          if (typeof sub === "string") {
            ws.send(sub);
            ws.close(1008, "bad parameters");
            return;
          }
          unsubscribe = events.subscribe((e) => {
            if (e.tenant === sub.tenant && e.type === sub.type && e.action === sub.action) ws.send(JSON.stringify(e.payload));
          }, sub);
          // A credential revoked while listening closes the socket (1008: policy violation).
          const onRevoked = () => ws.close(1008, "credential revoked");
          revoked?.addEventListener("abort", onRevoked, { once: true });
          const stop = unsubscribe;
          unsubscribe = () => {
            stop();
            revoked?.removeEventListener("abort", onRevoked);
          };
        },
        onClose() {
          unsubscribe?.();
        },
        onError() {
          unsubscribe?.();
        },
      };
    }),
  );
}
