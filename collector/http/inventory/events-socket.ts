import type { Hono } from "hono";
import { upgradeWebSocket } from "hono/bun";
import type { ServiceEnv } from "../../../src/http/service.ts";
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
 * `WS /ws/events?tenantId=&type=&action=`: one text frame with the JSON of each matching change.
 * Websocket clients cannot send headers, hence the tenant in the query. Bad parameters get one
 * text frame with the reason, then the socket is closed.
 */
export function addEventsSocket(app: Hono<ServiceEnv>, events: InventoryEvents): void {
  app.get(
    "/ws/events",
    upgradeWebSocket((c) => {
      const sub = subscriptionOf({ tenantId: c.req.query("tenantId"), type: c.req.query("type"), action: c.req.query("action") });
      let unsubscribe: (() => void) | undefined;
      return {
        onOpen(_evt, ws) {
          if (typeof sub === "string") {
            ws.send(sub);
            ws.close(1008, "bad parameters");
            return;
          }
          unsubscribe = events.subscribe((e) => {
            if (e.tenant === sub.tenant && e.type === sub.type && e.action === sub.action) ws.send(JSON.stringify(e.payload));
          });
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
