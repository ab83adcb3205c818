import { readJson } from "../../../../src/http/body.ts";
import { badRequest } from "../../../../src/http/errors.ts";
import { jsonResponse } from "../../../../src/http/json.ts";
import type { Routes, ServiceContext } from "../../../../src/http/service.ts";
import type { CanonicalPath } from "../../../../src/inventory/canonical-path.ts";
import { WELL_KNOWN } from "../../../../src/inventory/model.ts";
import { decodeId } from "../../../../src/inventory/path-codec.ts";
import type { EntityCode } from "../../../../src/inventory/segment-types.ts";
import type { EntityFilter } from "../../../../src/inventory/traversal/plan.ts";
import { associate, disassociate } from "../../../inventory/associations.ts";
import type { Inventory } from "../../../inventory/context.ts";
import { createEntities, deleteElement, getElement, updateElement } from "../../../inventory/elements.ts";
import { listChildren, listLinked } from "../../../inventory/listing.ts";
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

/** CRUD of entities of one type directly under a parent, at `base` and `base/:idParam`. */
export function addChildCrud(
  r: Routes,
  inv: Inventory,
  base: string,
  idParam: string,
  code: EntityCode,
  parentOf: (c: ServiceContext) => CanonicalPath,
  listFilters: (c: ServiceContext) => EntityFilter[] = () => [],
): void {
  r.get(base, async (c) => listed(c, await listChildren(inv, tenantOf(c), parentOf(c), code, listFilters(c))));
  r.post(base, async (c) => {
    const created = await createEntities(inv, tenantOf(c), parentOf(c), code, await readJson(c));
    return createdAt(c, created.many ? created.items : created.items[0], created.paths[0]!.id);
  });
  const one = `${base}/:${idParam}`;
  const path = (c: ServiceContext) => under(parentOf(c), code, param(c, idParam));
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

/** Resources defined by the global resource type named in the `type.id` (or `type`) query. */
function resourceTypeFilter(c: ServiceContext): EntityFilter[] {
  const type = c.req.query("type.id") ?? c.req.query("type");
  if (!type) return [];
  return [{ kind: "related", name: WELL_KNOWN.defines, other: topLevel(c, "rt", type), direction: "in" }];
}

/**
 * `/deprecated/environments`, `/deprecated/feeds` and what hangs directly below an environment:
 * its feeds (associated), metrics and resources.
 */
export function addEnvironmentRoutes(r: Routes, inv: Inventory): void {
  addChildCrud(r, inv, "/deprecated/environments", "environmentId", "e", tenantRoot);
  addChildCrud(r, inv, "/deprecated/feeds", "feedId", "f", tenantRoot);

  const env = (c: ServiceContext) => topLevel(c, "e", param(c, "environmentId"));
  const feedPath = (c: ServiceContext, text: string) =>
    flag(c, "canonical") || text.includes(";") ? clientPath(c, text, tenantRoot(c), "f", true) : topLevel(c, "f", decodeId(text));

  r.get("/deprecated/:environmentId/feeds", async (c) =>
    listed(c, await listLinked(inv, tenantOf(c), env(c), WELL_KNOWN.incorporates, "out", [{ kind: "type", types: ["f"] }])),
  );
  r.post("/deprecated/:environmentId/feeds", async (c) => {
    const paths = stringList(await readJson(c), "feed paths").map((p) => feedPath(c, p));
    for (const p of paths) if (p.type !== "f") throw badRequest(`${p} is not a feed`);
    await associate(inv, tenantOf(c), env(c), WELL_KNOWN.incorporates, paths);
    return noContent(c);
  });
  r.get("/deprecated/:environmentId/feeds/:feedPath{.+}", async (c) => {
    const target = feedPath(c, rawTail(c, 3));
    const linked = await listLinked(inv, tenantOf(c), env(c), WELL_KNOWN.incorporates, "out", [{ kind: "path", paths: [target] }]);
    if (!linked[0]) return c.json({ errorMsg: `${target} is not a feed of ${env(c)}` }, 404);
    return jsonResponse(c, 200, linked[0]);
  });
  r.delete("/deprecated/:environmentId/feeds/:feedPath{.+}", async (c) => {
    await disassociate(inv, tenantOf(c), env(c), WELL_KNOWN.incorporates, feedPath(c, rawTail(c, 3)));
    return noContent(c);
  });

  addChildCrud(r, inv, "/deprecated/:environmentId/metrics", "metricId", "m", env);
  r.get("/deprecated/:environmentId/resources", async (c) =>
    listed(c, await listChildren(inv, tenantOf(c), env(c), "r", resourceTypeFilter(c))),
  );
  r.post("/deprecated/:environmentId/resources", async (c) => {
    const created = await createEntities(inv, tenantOf(c), env(c), "r", await readJson(c));
    return createdAt(c, created.many ? created.items : created.items[0], created.paths[0]!.id);
  });
}
