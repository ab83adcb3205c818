import { readJson } from "../../../src/http/body.ts";
import { jsonResponse } from "../../../src/http/json.ts";
import { absoluteUrl, type Routes, type ServiceContext } from "../../../src/http/service.ts";
import { CanonicalPath } from "../../../src/inventory/canonical-path.ts";
import { parseTraversal } from "../../../src/inventory/traversal/parse.ts";
import type { Inventory } from "../../inventory/context.ts";
import { createRelationships, getElement, updateElement } from "../../inventory/elements.ts";
import { checked } from "../../inventory/failures.ts";
import { runTraversal } from "../../inventory/traversal.ts";
import { pagedResponse, pagingOf } from "./paged-response.ts";
import { rawPathAfter } from "./request-path.ts";

/**
 * The version of Hawkular Inventory whose current interface this is (research §0: master,
 * 1.1.4). Clients read it from GET /status; the Ruby client asks for it when it starts.
 */
export const INVENTORY_VERSION = "1.1.4";

const tenantRoot = (c: ServiceContext) => CanonicalPath.tenant(c.get("tenant"));

/** GET /status, and the tenant of the request at /tenant (upstream's RestTenant at the current root). */
export function addStatusAndTenantRoutes(r: Routes, inv: Inventory): void {
  r.get("/status", (c) =>
    c.json({ "Implementation-Version": INVENTORY_VERSION, "Built-From-Git-SHA1": "outpost", "Inventory-Implementation": "outpost", Initialized: "true" }),
  );
  r.get("/tenant", async (c) => jsonResponse(c, 200, await getElement(inv, c.get("tenant"), tenantRoot(c))));
  r.put("/tenant", async (c) => {
    await updateElement(inv, c.get("tenant"), tenantRoot(c), await readJson(c));
    return c.body(null, 204);
  });
  // GET /tenant/relationships[;in|out][;filters]: the traversal language's `relationships` of the tenant.
  const relationships = async (c: ServiceContext) => {
    const tenant = c.get("tenant");
    const paging = pagingOf(c);
    const plan = checked(() => parseTraversal(rawPathAfter(c, "/tenant"), tenant));
    return pagedResponse(c, await runTraversal(inv, tenant, plan), paging);
  };
  r.get("/tenant/relationships", relationships).get("/tenant/relationships;*", relationships);
  r.post("/tenant/relationship", async (c) => {
    const created = await createRelationships(inv, c.get("tenant"), tenantRoot(c), await readJson(c));
    const last = created.paths[created.paths.length - 1];
    const headers: Record<string, string> = last ? { Location: absoluteUrl(c, `/entity/${last.tenantless()}`) } : {};
    return jsonResponse(c, 201, created.many ? created.items : created.items[0], { headers });
  });
}
