import type { Routes, ServiceContext } from "../../../src/http/service.ts";
import { parseTraversal } from "../../../src/inventory/traversal/parse.ts";
import type { Inventory } from "../../inventory/context.ts";
import { checked } from "../../inventory/failures.ts";
import { runTraversal } from "../../inventory/traversal.ts";
import { pagedResponse, pagingOf } from "./paged-response.ts";
import { rawPathAfter } from "./request-path.ts";

/** `GET /traversal/{segments}`: the traversal language, paged. */
export function addTraversalRoutes(r: Routes, inv: Inventory): void {
  const traverse = async (c: ServiceContext) => {
    const tenant = c.get("tenant");
    const paging = pagingOf(c);
    const plan = checked(() => parseTraversal(rawPathAfter(c, "/traversal"), tenant));
    return pagedResponse(c, await runTraversal(inv, tenant, plan), paging);
  };
  r.get("/traversal", traverse).get("/traversal/*", traverse);
}
