import { readJson } from "../../../../src/http/body.ts";
import { badRequest } from "../../../../src/http/errors.ts";
import { jsonResponse } from "../../../../src/http/json.ts";
import { absoluteUrl, type Routes, type ServiceContext } from "../../../../src/http/service.ts";
import { parseWith } from "../../../../src/http/validate.ts";
import { relationshipUpdateSchema } from "../../../../src/inventory/blueprints.ts";
import type { CanonicalPath } from "../../../../src/inventory/canonical-path.ts";
import { encodeId } from "../../../../src/inventory/path-codec.ts";
import { segmentTypeFromName } from "../../../../src/inventory/segment-types.ts";
import type { RelationshipFilter } from "../../../../src/inventory/traversal/plan.ts";
import type { Inventory } from "../../../inventory/context.ts";
import { createRelationships, deleteElement, deleteTenant, getElement, updateElement } from "../../../inventory/elements.ts";
import { listRelationships } from "../../../inventory/listing.ts";
import { addBulkAndSyncRoutes } from "../bulk-sync-routes.ts";
import { pathFromUrl, rawPathAfter } from "../request-path.ts";
import { addEnvironmentRoutes } from "./environment-routes.ts";
import { addPackRoutes } from "./pack-routes.ts";
import { addResourceRoutes } from "./resource-routes.ts";
import { listed, noContent, tenantOf, tenantRoot } from "./support.ts";
import { addTypeRoutes } from "./type-routes.ts";

const ENDPOINTS = [
  "/bulk",
  "/ping",
  "/path/{entityPath}",
  "/path/{entityPath}/relationships",
  "/relationships/{relationshipId}",
  "/sync/{path}",
  "/tenant",
  "/tenant/relationships",
  "/metadatapacks",
  "/metadatapacks/{id}",
  "/metadatapacks/{id}/metricTypes",
  "/metadatapacks/{id}/resourceTypes",
  "/metricTypes",
  "/metricTypes/{metricTypeId}",
  "/resourceTypes",
  "/resourceTypes/{resourceTypeId}",
  "/resourceTypes/{resourceTypeId}/data",
  "/resourceTypes/{resourceTypeId}/metricTypes",
  "/resourceTypes/{resourceTypeId}/metricTypes/{metricTypePath}",
  "/resourceTypes/{resourceTypeId}/operationTypes",
  "/resourceTypes/{resourceTypeId}/operationTypes/{operationTypeId}",
  "/resourceTypes/{resourceTypeId}/operationTypes/{operationTypeId}/data",
  "/resourceTypes/{resourceTypeId}/resources",
  "/environments",
  "/environments/{environmentId}",
  "/feeds",
  "/feeds/{feedId}",
  "/{environmentId}/feeds",
  "/{environmentId}/feeds/{feedPath}",
  "/{environmentId}/metrics",
  "/{environmentId}/metrics/{metricId}",
  "/{environmentId}/resources",
  "/{environmentId}/resources/{parentPath}",
  "/feeds/{feedId}/resources/{resourcePath}/metrics",
  "/feeds/{feedId}/resources/{resourcePath}/metrics/{metricPath}",
  "/feeds/{feedId}/resources/{resourcePath}/parent",
  "/feeds/{feedId}/resources/{resourcePath}/parents",
  "/feeds/{feedId}/resources/{resourcePath}/recursiveChildren",
];

/** Query of the relationship listings: direction, property/propertyValue, named, sourceType, targetType. */
function relationshipQuery(c: ServiceContext): { direction: "out" | "in" | "both"; filters: RelationshipFilter[] } {
  const dir = c.req.query("direction") ?? "both";
  const direction = dir === "outgoing" ? "out" : dir === "incoming" ? "in" : dir === "both" ? "both" : undefined;
  if (!direction) throw badRequest(`direction must be outgoing, incoming or both, not '${dir}'`);
  const filters: RelationshipFilter[] = [];
  const property = c.req.query("property");
  const value = c.req.query("propertyValue");
  if (value && !property) throw badRequest("propertyValue needs property");
  if (property) filters.push(value ? { kind: "propertyValues", name: property, values: [value] } : { kind: "hasProperty", name: property });
  const named = c.req.query("named");
  if (named) filters.push({ kind: "name", names: [named] });
  for (const [q, kind] of [
    ["sourceType", "sourceType"],
    ["targetType", "targetType"],
  ] as const) {
    const v = c.req.query(q);
    if (!v) continue;
    const t = segmentTypeFromName(v);
    if (!t || t === "rl") throw badRequest(`Unknown entity type '${v}' in ${q}`);
    filters.push({ kind, types: [t] });
  }
  return { direction, filters };
}

/** The earlier interface under `/deprecated`, on the same store and domain functions. */
export function addDeprecatedRoutes(r: Routes, inv: Inventory): void {
  const relationshipsOf = async (c: ServiceContext, path: CanonicalPath) => {
    const q = relationshipQuery(c);
    return listed(c, await listRelationships(inv, tenantOf(c), path, q.direction, q.filters));
  };
  /** Relationship create (a blueprint or an array; the other end relative to `origin`): 201 with what was created. */
  const relate = async (c: ServiceContext, origin: CanonicalPath) => {
    const created = await createRelationships(inv, tenantOf(c), origin, await readJson(c));
    const last = created.paths[created.paths.length - 1]!;
    const location = absoluteUrl(c, `/deprecated/relationships/${encodeId(last.last.id)}`);
    return jsonResponse(c, 201, created.many ? created.items : created.items[0], { headers: { Location: location } });
  };
  const relationshipPath = (c: ServiceContext) => pathFromUrl(`rl;${rawPathAfter(c, "/deprecated/relationships")}`, tenantOf(c));

  r.get("/deprecated", (c) => c.json({ documentation: "docs/inventory.md", endpoints: ENDPOINTS.map((uri) => `/deprecated${uri}`) }));
  r.get("/deprecated/ping", (c) => c.json(new Date().toString()));
  addBulkAndSyncRoutes(r, inv, "/deprecated");

  r.get("/deprecated/path/*", async (c) => {
    const raw = rawPathAfter(c, "/deprecated/path");
    const tenant = tenantOf(c);
    if (raw.endsWith("/relationships")) return relationshipsOf(c, pathFromUrl(raw.slice(0, -"/relationships".length), tenant));
    return jsonResponse(c, 200, await getElement(inv, tenant, pathFromUrl(raw, tenant)));
  });
  r.post("/deprecated/path/*", async (c) => {
    const raw = rawPathAfter(c, "/deprecated/path");
    if (!raw.endsWith("/relationships")) throw badRequest("Only relationships are created under /path: POST /path/{entityPath}/relationships");
    return relate(c, pathFromUrl(raw.slice(0, -"/relationships".length), tenantOf(c)));
  });
  r.get("/deprecated/relationships/:id", async (c) => jsonResponse(c, 200, await getElement(inv, tenantOf(c), relationshipPath(c))));
  r.delete("/deprecated/relationships/:id", async (c) => {
    await deleteElement(inv, tenantOf(c), relationshipPath(c));
    return noContent(c);
  });

  r.get("/deprecated/tenant", async (c) => jsonResponse(c, 200, await getElement(inv, tenantOf(c), tenantRoot(c))));
  r.put("/deprecated/tenant", async (c) => {
    const body = await readJson(c);
    await updateElement(inv, tenantOf(c), tenantRoot(c), body);
    return noContent(c);
  });
  r.delete("/deprecated/tenant", async (c) => {
    await deleteTenant(inv, tenantOf(c));
    return noContent(c);
  });
  r.get("/deprecated/tenant/relationships", (c) => relationshipsOf(c, tenantRoot(c)));
  r.post("/deprecated/tenant/relationships", (c) => relate(c, tenantRoot(c)));
  r.put("/deprecated/relationships/:id", async (c) => {
    const body = parseWith(relationshipUpdateSchema, await readJson(c), "relationship update");
    await updateElement(inv, tenantOf(c), relationshipPath(c), body);
    return noContent(c);
  });

  addPackRoutes(r, inv);
  addTypeRoutes(r, inv);
  addEnvironmentRoutes(r, inv);
  addResourceRoutes(r, inv);
}
