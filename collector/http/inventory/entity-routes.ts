import { readJson } from "../../../src/http/body.ts";
import { badRequest } from "../../../src/http/errors.ts";
import { jsonResponse } from "../../../src/http/json.ts";
import { absoluteUrl, type Routes, type ServiceContext } from "../../../src/http/service.ts";
import { segmentTypeFromName } from "../../../src/inventory/segment-types.ts";
import type { Inventory } from "../../inventory/context.ts";
import { createEntities, createRelationships, deleteElement, getElement, updateElement } from "../../inventory/elements.ts";
import { treeHash } from "../../inventory/tree-hash.ts";
import { pathFromUrl, rawPathAfter } from "./request-path.ts";

const TREE_HASH = "/treeHash";

/** `/entity/...`: read, create, update and delete single entities and relationships. */
export function addEntityRoutes(r: Routes, inv: Inventory): void {
  const get = async (c: ServiceContext) => {
    const raw = rawPathAfter(c, "/entity");
    const tenant = c.get("tenant");
    if (raw.endsWith(TREE_HASH)) {
      return c.json(await treeHash(inv, tenant, pathFromUrl(raw.slice(0, -TREE_HASH.length), tenant)));
    }
    return jsonResponse(c, 200, await getElement(inv, tenant, pathFromUrl(raw, tenant)));
  };

  const post = async (c: ServiceContext) => {
    const raw = rawPathAfter(c, "/entity");
    const tenant = c.get("tenant");
    const slash = raw.lastIndexOf("/");
    const typeName = raw.slice(slash + 1);
    const parent = pathFromUrl(slash < 0 ? "" : raw.slice(0, slash), tenant);
    const type = segmentTypeFromName(typeName);
    if (!type || type === "t" || typeName === "") {
      throw badRequest(`'${typeName}' is not an entity type that can be created; expected e.g. environment, feed, resource`);
    }
    const body = await readJson(c);
    const created =
      type === "rl" ? await createRelationships(inv, tenant, parent, body) : await createEntities(inv, tenant, parent, type, body);
    const last = created.paths[created.paths.length - 1];
    const headers: Record<string, string> = {};
    if (last) headers.Location = absoluteUrl(c, `/entity/${last.tenantless()}`);
    return jsonResponse(c, 201, created.many ? created.items : created.items[0], { headers });
  };

  const put = async (c: ServiceContext) => {
    const tenant = c.get("tenant");
    const path = pathFromUrl(rawPathAfter(c, "/entity"), tenant);
    await updateElement(inv, tenant, path, await readJson(c));
    return c.body(null, 204);
  };

  const del = async (c: ServiceContext) => {
    const tenant = c.get("tenant");
    await deleteElement(inv, tenant, pathFromUrl(rawPathAfter(c, "/entity"), tenant));
    return c.body(null, 204);
  };

  r.get("/entity/*", get).post("/entity/*", post).put("/entity/*", put).delete("/entity/*", del);
}
