import { readJson } from "../../../../src/http/body.ts";
import { badRequest, notFound } from "../../../../src/http/errors.ts";
import { jsonResponse } from "../../../../src/http/json.ts";
import type { Routes, ServiceContext } from "../../../../src/http/service.ts";
import type { CanonicalPath } from "../../../../src/inventory/canonical-path.ts";
import { WELL_KNOWN } from "../../../../src/inventory/model.ts";
import type { EntityFilter } from "../../../../src/inventory/traversal/plan.ts";
import { associate, disassociate } from "../../../inventory/associations.ts";
import type { Inventory } from "../../../inventory/context.ts";
import { createEntities, deleteElement, getElement, updateElement } from "../../../inventory/elements.ts";
import { listChildren, listLinked, listReachable } from "../../../inventory/listing.ts";
import type { Json } from "../../../inventory/render.ts";
import { clientPath, createdAt, flag, listed, noContent, param, rawTail, tenantOf, topLevel } from "./support.ts";

/** What a request below `.../resources/` addresses: the resource path and what follows it. */
interface Target {
  /** The environment or feed the resource path is relative to. */
  scope: CanonicalPath;
  resource: CanonicalPath;
  /** undefined: the resource itself. */
  sub?: "metrics" | "parent" | "parents" | "children" | "recursiveChildren";
  /** Raw path of one metric after `/metrics/`. */
  rest?: string;
}

const SUFFIXES = ["parent", "parents", "children", "recursiveChildren"] as const;

/**
 * Splits the raw tail after `resources/`: `r1/r2` is a resource path (untyped segments are
 * resources); it may end with `/metrics[/<metric path>]`, `/parent`, `/parents`, `/children`
 * or `/recursiveChildren`. A resource whose id is one of those words must be written typed (`r;metrics`).
 */
function targetOf(c: ServiceContext, scope: CanonicalPath, skip: number): Target {
  const segs = rawTail(c, skip).split("/");
  let sub: Target["sub"];
  let rest: string | undefined;
  const m = segs.indexOf("metrics", 1);
  if (m > 0) {
    sub = "metrics";
    rest = segs.slice(m + 1).join("/") || undefined;
    segs.length = m;
  } else if (segs.length > 1 && (SUFFIXES as readonly string[]).includes(segs[segs.length - 1]!)) {
    sub = segs.pop() as Target["sub"];
  }
  const resource = clientPath(c, segs.join("/"), scope, "r", false);
  if (resource.type !== "r") throw badRequest(`${resource} is not a resource`);
  return { scope, resource, sub, rest };
}

function unique(items: Json[]): Json[] {
  const seen = new Set<unknown>();
  return items.filter((j) => !seen.has(j.path) && seen.add(j.path));
}

/** The metrics a resource contains or is associated with. */
async function metricsOf(inv: Inventory, tenant: string, resource: CanonicalPath): Promise<Json[]> {
  const contained = await listChildren(inv, tenant, resource, "m");
  const associated = await listLinked(inv, tenant, resource, WELL_KNOWN.incorporates, "out", [{ kind: "type", types: ["m"] }]);
  return unique([...contained, ...associated]);
}

function metricPath(c: ServiceContext, t: Target): CanonicalPath {
  const p = clientPath(c, t.rest!, t.resource, "m", flag(c, "canonical"));
  if (p.type !== "m") throw badRequest(`${p} is not a metric`);
  return p;
}

/**
 * Resources below an environment (`/deprecated/{environmentId}/resources/...`) and a feed
 * (`/deprecated/feeds/{feedId}/resources/...`): the resource, child creation, its metrics,
 * parents and children.
 */
export function addResourceRoutes(r: Routes, inv: Inventory): void {
  const feed = (c: ServiceContext) => topLevel(c, "f", param(c, "feedId"));
  const env = (c: ServiceContext) => topLevel(c, "e", param(c, "environmentId"));

  r.get("/deprecated/feeds/:feedId/resources", async (c) => listed(c, await listChildren(inv, tenantOf(c), feed(c), "r")));
  r.post("/deprecated/feeds/:feedId/resources", async (c) => {
    const created = await createEntities(inv, tenantOf(c), feed(c), "r", await readJson(c));
    return createdAt(c, created.many ? created.items : created.items[0], created.paths[0]!.id);
  });

  for (const [route, scopeOf, skip] of [
    ["/deprecated/feeds/:feedId/resources/*", feed, 4],
    ["/deprecated/:environmentId/resources/*", env, 3],
  ] as const) {
    const target = (c: ServiceContext) => targetOf(c, scopeOf(c), skip);

    r.get(route, async (c) => {
      const tenant = tenantOf(c);
      const t = target(c);
      switch (t.sub) {
        case undefined:
          return jsonResponse(c, 200, await getElement(inv, tenant, t.resource));
        case "metrics": {
          const all = await metricsOf(inv, tenant, t.resource);
          if (!t.rest) return listed(c, all);
          const wanted = metricPath(c, t).toString();
          const found = all.find((m) => m.path === wanted);
          if (!found) throw notFound(`${wanted} is not a metric of ${t.resource}`);
          return jsonResponse(c, 200, found);
        }
        case "parent": {
          const parents = await listLinked(inv, tenant, t.resource, WELL_KNOWN.isParentOf, "in");
          const container = t.resource.parent()!.toString();
          const parent = parents.find((p) => p.path === container) ?? parents[0];
          if (!parent) throw notFound(`${t.resource} has no parent resource`);
          return jsonResponse(c, 200, parent);
        }
        case "parents":
          return listed(c, await listLinked(inv, tenant, t.resource, WELL_KNOWN.isParentOf, "in"));
        case "children":
          return listed(c, await listLinked(inv, tenant, t.resource, WELL_KNOWN.isParentOf, "out"));
        case "recursiveChildren": {
          const typeId = c.req.query("typeId");
          const filters: EntityFilter[] = [{ kind: "type", types: ["r"] }];
          if (typeId) {
            // In a feed the type is the feed's own unless feedlessType asks for the global one.
            const rt = t.scope.type === "f" && !flag(c, "feedlessType") ? t.scope.extend("rt", typeId) : topLevel(c, "rt", typeId);
            filters.push({ kind: "related", name: WELL_KNOWN.defines, other: rt, direction: "in" });
          }
          return listed(c, await listReachable(inv, tenant, t.resource, WELL_KNOWN.isParentOf, filters));
        }
      }
    });

    r.post(route, async (c) => {
      const tenant = tenantOf(c);
      const t = target(c);
      const body = await readJson(c);
      if (t.sub === undefined) {
        const created = await createEntities(inv, tenant, t.resource, "r", body);
        return createdAt(c, created.many ? created.items : created.items[0], created.paths[0]!.id);
      }
      if (t.sub !== "metrics" || t.rest) return c.json({ errorMsg: "Method POST is not supported on this resource" }, 405);
      // An array of strings associates existing metrics; objects are blueprints of metrics to create.
      if (Array.isArray(body) && body.length > 0 && body.every((x) => typeof x === "string")) {
        const paths = (body as string[]).map((p) => clientPath(c, p, t.resource, "m", p.startsWith("/")));
        for (const p of paths) if (p.type !== "m") throw badRequest(`${p} is not a metric`);
        await associate(inv, tenant, t.resource, WELL_KNOWN.incorporates, paths);
        return noContent(c);
      }
      const created = await createEntities(inv, tenant, t.resource, "m", body);
      return createdAt(c, created.many ? created.items : created.items[0], created.paths[0]!.id);
    });

    r.put(route, async (c) => {
      const t = target(c);
      if (t.sub !== undefined) return c.json({ errorMsg: "Method PUT is not supported on this resource" }, 405);
      const body = await readJson(c);
      await updateElement(inv, tenantOf(c), t.resource, body);
      return noContent(c);
    });

    r.delete(route, async (c) => {
      const tenant = tenantOf(c);
      const t = target(c);
      if (t.sub === undefined) {
        await deleteElement(inv, tenant, t.resource);
        return noContent(c);
      }
      if (t.sub !== "metrics" || !t.rest) return c.json({ errorMsg: "Method DELETE is not supported on this resource" }, 405);
      const metric = metricPath(c, t);
      const associated = await listLinked(inv, tenant, t.resource, WELL_KNOWN.incorporates, "out", [{ kind: "path", paths: [metric] }]);
      const contained = metric.parent()?.equals(t.resource) ?? false;
      if (!associated.length && !contained) throw notFound(`${metric} is not a metric of ${t.resource}`);
      if (associated.length) await disassociate(inv, tenant, t.resource, WELL_KNOWN.incorporates, metric);
      // A metric the resource contains goes with the association.
      if (contained) await deleteElement(inv, tenant, metric);
      return noContent(c);
    });
  }
}
