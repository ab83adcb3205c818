import { readJson } from "../../../../src/http/body.ts";
import { badRequest } from "../../../../src/http/errors.ts";
import { jsonResponse } from "../../../../src/http/json.ts";
import type { Routes, ServiceContext } from "../../../../src/http/service.ts";
import type { CanonicalPath } from "../../../../src/inventory/canonical-path.ts";
import { WELL_KNOWN } from "../../../../src/inventory/model.ts";
import { decodeId } from "../../../../src/inventory/path-codec.ts";
import { DATA_ROLES } from "../../../../src/inventory/segment-types.ts";
import { associate, disassociate } from "../../../inventory/associations.ts";
import type { Inventory } from "../../../inventory/context.ts";
import { createEntities, deleteElement, getElement, updateElement } from "../../../inventory/elements.ts";
import { listChildren, listLinked, listOfType } from "../../../inventory/listing.ts";
import {
  clientPath,
  createdAt,
  flag,
  listed,
  noContent,
  param,
  rawTail,
  stringList,
  tenantOf,
  tenantRoot,
  topLevel,
  under,
} from "./support.ts";

/** The data role named by the `dataType` query (the first role of the parent type by default). */
function dataRole(c: ServiceContext, parent: CanonicalPath): string {
  const roles = DATA_ROLES[parent.type as "rt" | "ot"]!;
  const role = c.req.query("dataType") ?? roles[0];
  if (!roles.includes(role)) throw badRequest(`dataType must be ${roles.join(" or ")}, not '${role}'`);
  return role;
}

/** Data blueprints take their role from the `dataType` query when they do not name one. */
function withRole(body: unknown, role: string): unknown {
  const list = Array.isArray(body) ? body : [body];
  return list.map((b) => (b !== null && typeof b === "object" && !("role" in b) && !("id" in b) ? { ...b, role } : b));
}

/** GET/POST/PUT/DELETE of the data entities of a resource type or operation type. */
function addDataRoutes(r: Routes, inv: Inventory, route: string, parentOf: (c: ServiceContext) => CanonicalPath): void {
  r.get(route, async (c) => {
    const parent = parentOf(c);
    return jsonResponse(c, 200, await getElement(inv, tenantOf(c), under(parent, "d", dataRole(c, parent))));
  });
  r.post(route, async (c) => {
    const parent = parentOf(c);
    await createEntities(inv, tenantOf(c), parent, "d", withRole(await readJson(c), dataRole(c, parent)));
    return noContent(c);
  });
  r.put(route, async (c) => {
    const parent = parentOf(c);
    const body = await readJson(c);
    await updateElement(inv, tenantOf(c), under(parent, "d", dataRole(c, parent)), body);
    return noContent(c);
  });
  r.delete(route, async (c) => {
    const parent = parentOf(c);
    await deleteElement(inv, tenantOf(c), under(parent, "d", dataRole(c, parent)));
    return noContent(c);
  });
}

/** GET (list), POST, and GET/PUT/DELETE of one of the tenant's global metric or resource types. */
function addGlobalTypeRoutes(r: Routes, inv: Inventory, base: string, code: "mt" | "rt", idParam: string): void {
  r.get(base, async (c) =>
    listed(
      c,
      flag(c, "feedless")
        ? await listChildren(inv, tenantOf(c), tenantRoot(c), code)
        : await listOfType(inv, tenantOf(c), code),
    ),
  );
  r.post(base, async (c) => {
    const created = await createEntities(inv, tenantOf(c), tenantRoot(c), code, await readJson(c));
    return createdAt(c, created.many ? created.items : created.items[0], created.paths[0]!.id);
  });
  const one = `${base}/:${idParam}`;
  const path = (c: ServiceContext) => topLevel(c, code, param(c, idParam));
  r.get(one, async (c) => jsonResponse(c, 200, await getElement(inv, tenantOf(c), path(c))));
  r.put(one, async (c) => {
    const body = await readJson(c);
    await updateElement(inv, tenantOf(c), path(c), body);
    return noContent(c);
  });
  r.delete(one, async (c) => {
    await deleteElement(inv, tenantOf(c), path(c));
    return noContent(c);
  });
}

/** `/deprecated/metricTypes` and `/deprecated/resourceTypes` with what hangs below a resource type. */
export function addTypeRoutes(r: Routes, inv: Inventory): void {
  addGlobalTypeRoutes(r, inv, "/deprecated/metricTypes", "mt", "metricTypeId");
  addGlobalTypeRoutes(r, inv, "/deprecated/resourceTypes", "rt", "resourceTypeId");

  const rt = (c: ServiceContext) => topLevel(c, "rt", param(c, "resourceTypeId"));
  const ot = (c: ServiceContext) => under(rt(c), "ot", param(c, "operationTypeId"));
  const base = "/deprecated/resourceTypes/:resourceTypeId";

  addDataRoutes(r, inv, `${base}/data`, rt);

  // Metric types a resource type incorporates; a bare id names a global metric type.
  const metricTypePath = (c: ServiceContext, text: string) =>
    text.includes(";") || text.startsWith("/") || flag(c, "canonical")
      ? clientPath(c, text, rt(c), "mt", flag(c, "canonical"))
      : topLevel(c, "mt", decodeId(text));
  r.get(`${base}/metricTypes`, async (c) =>
    listed(c, await listLinked(inv, tenantOf(c), rt(c), WELL_KNOWN.incorporates, "out", [{ kind: "type", types: ["mt"] }])),
  );
  r.post(`${base}/metricTypes`, async (c) => {
    const paths = stringList(await readJson(c), "metric type paths").map((p) => metricTypePath(c, p));
    for (const p of paths) if (p.type !== "mt") throw badRequest(`${p} is not a metric type`);
    await associate(inv, tenantOf(c), rt(c), WELL_KNOWN.incorporates, paths);
    return noContent(c);
  });
  r.get(`${base}/metricTypes/:metricTypePath{.+}`, async (c) => {
    const target = metricTypePath(c, rawTail(c, 4));
    const linked = await listLinked(inv, tenantOf(c), rt(c), WELL_KNOWN.incorporates, "out", [{ kind: "path", paths: [target] }]);
    if (!linked[0]) return c.json({ errorMsg: `${target} is not a metric type of ${rt(c)}` }, 404);
    return jsonResponse(c, 200, linked[0]);
  });
  r.delete(`${base}/metricTypes/:metricTypePath{.+}`, async (c) => {
    await disassociate(inv, tenantOf(c), rt(c), WELL_KNOWN.incorporates, metricTypePath(c, rawTail(c, 4)));
    return noContent(c);
  });

  r.get(`${base}/operationTypes`, async (c) => listed(c, await listChildren(inv, tenantOf(c), rt(c), "ot")));
  r.post(`${base}/operationTypes`, async (c) => {
    await createEntities(inv, tenantOf(c), rt(c), "ot", await readJson(c));
    return noContent(c);
  });
  const oneOt = `${base}/operationTypes/:operationTypeId`;
  r.get(oneOt, async (c) => jsonResponse(c, 200, await getElement(inv, tenantOf(c), ot(c))));
  r.put(oneOt, async (c) => {
    const body = await readJson(c);
    await updateElement(inv, tenantOf(c), ot(c), body);
    return noContent(c);
  });
  r.delete(oneOt, async (c) => {
    await deleteElement(inv, tenantOf(c), ot(c));
    return noContent(c);
  });
  addDataRoutes(r, inv, `${oneOt}/data`, ot);

  r.get(`${base}/resources`, async (c) => listed(c, await listLinked(inv, tenantOf(c), rt(c), WELL_KNOWN.defines, "out")));
}
