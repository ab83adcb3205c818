import * as z from "zod";
import { ApiError } from "../errors.ts";
import { jsonOr204 } from "../json.ts";
import { filterYielding } from "../yielding.ts";
import type { Routes, ServiceContext } from "../service.ts";
import { METRIC_TYPES, type MetricDefinition, type MetricType, TYPE_PATH } from "../../metrics/model.ts";
import { compileTagSelector } from "../../metrics/tag-selector.ts";
import { PatternError, UserPattern } from "../../regex/user-pattern.ts";
import { regexValue, TagQueryError } from "../../tags/query/index.ts";
import { parseQuery } from "./query-params.ts";
import type { MetricsReadDeps } from "./read-deps.ts";

/** Metric definitions read (the metrics interface's GET paths of definitions and tags): the collector's and the agent's. */

export const userType = z.enum(METRIC_TYPES, { error: "Metric type is invalid" });

function typeParam(raw: string | undefined): MetricType | undefined {
  if (raw === undefined || raw === "") return undefined;
  const r = userType.safeParse(raw.toLowerCase());
  // Upstream names the type it refuses (`Incorrect type param counter_rate`).
  if (!r.success) throw new ApiError(400, `Incorrect type param ${raw}`);
  return r.data;
}

/**
 * Definitions of the tenant matching the optional type, tags and id. With tags (query language
 * or tag list), `id` is a regular expression over the whole id; without, it is a list of exact
 * ids separated by `|` (0.2x), of any type unless one is given.
 */
async function findDefinitions(
  c: ServiceContext,
  deps: MetricsReadDeps,
  types: MetricType | undefined,
  tags: string | undefined,
  idPattern: string | undefined,
): Promise<MetricDefinition[]> {
  if ((tags === undefined || tags === "") && idPattern !== undefined && idPattern !== "") {
    return deps.store.findMetrics(c.get("tenant"), { type: types, ids: idPattern.split("|") });
  }
  const matchTags = tags === undefined || tags === "" ? undefined : compileTagSelector(tags).match;
  let idRegex: UserPattern | undefined;
  if (idPattern !== undefined && idPattern !== "") {
    try {
      idRegex = UserPattern.compile(idPattern);
    } catch (e) {
      if (!(e instanceof PatternError)) throw e;
      throw new ApiError(400, `Invalid id pattern: ${idPattern} (${e.message})`);
    }
  }
  const defs = await deps.store.findMetrics(c.get("tenant"), { type: types });
  return filterYielding(defs, (d) => (!matchTags || matchTags(d.tags)) && (!idRegex || idRegex.test(d.id)));
}

/**
 * `{name: [distinct values]}` over the definitions the selector matches (a tag list, or the tag
 * query language, whose named tags give the keys).
 */
async function tagValues(c: ServiceContext, deps: MetricsReadDeps, type: MetricType | undefined): Promise<Response> {
  const { match, names } = compileTagSelector(c.req.param("tags") ?? "");
  const out: Record<string, string[]> = {};
  for (const d of await filterYielding(await deps.store.findMetrics(c.get("tenant"), { type }), (d) => match(d.tags))) {
    for (const n of names) {
      const v = d.tags?.[n];
      if (v === undefined) continue;
      const arr = (out[n] ??= []);
      if (!arr.includes(v)) arr.push(v);
    }
  }
  return jsonOr204(c, out);
}

/** GET /metrics/tags (0.22+): the distinct tag names of the tenant's metrics, optionally of one type and matching `filter`. */
async function tagNames(c: ServiceContext, deps: MetricsReadDeps): Promise<Response> {
  const p = parseQuery(c, z.object({ type: z.string().optional(), filter: z.string().optional() }));
  let filter: UserPattern | undefined;
  if (p.filter !== undefined && p.filter !== "") {
    try {
      const v = regexValue(p.filter, 0);
      if (v.kind === "regex") filter = v.re;
    } catch (e) {
      if (e instanceof TagQueryError) throw new ApiError(400, `Invalid filter: ${e.message}`);
      throw e;
    }
  }
  const names = new Set<string>();
  for (const d of await deps.store.findMetrics(c.get("tenant"), { type: typeParam(p.type) })) {
    for (const name of Object.keys(d.tags ?? {})) if (!filter || filter.test(name)) names.add(name);
  }
  return jsonOr204(c, [...names].sort());
}

/** GET /metrics, /metrics/tags, /{type} and their tag paths. */
export function definitionReadRoutes(r: Routes, deps: MetricsReadDeps): void {
  r.get("/metrics/tags", (c) => tagNames(c, deps));
  r.get("/metrics", async (c) => {
    const p = parseQuery(c, z.object({ type: z.string().optional(), tags: z.string().optional(), id: z.string().optional() }));
    return jsonOr204(c, await findDefinitions(c, deps, typeParam(p.type), p.tags, p.id));
  });
  r.get("/metrics/tags/:tags", (c) => tagValues(c, deps, typeParam(c.req.query("type"))));
  for (const type of METRIC_TYPES) {
    const base = `/${TYPE_PATH[type]}`;
    r.get(base, async (c) => {
      const p = parseQuery(c, z.object({ tags: z.string().optional(), id: z.string().optional() }));
      return jsonOr204(c, await findDefinitions(c, deps, type, p.tags, p.id));
    });
    r.get(`${base}/tags/:tags`, (c) => tagValues(c, deps, type));
  }
}

/** GET /{type}/{id} and /{type}/{id}/tags; registered after the static paths of each family. */
export function definitionReadByIdRoutes(r: Routes, deps: MetricsReadDeps): void {
  for (const type of METRIC_TYPES) {
    const base = `/${TYPE_PATH[type]}/:id`;
    r.get(base, async (c) => jsonOr204(c, await deps.store.getMetric(c.get("tenant"), type, c.req.param("id")!)));
    r.get(`${base}/tags`, async (c) => {
      const def = await deps.store.getMetric(c.get("tenant"), type, c.req.param("id")!);
      return jsonOr204(c, def?.tags);
    });
  }
}
