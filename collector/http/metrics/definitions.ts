import * as z from "zod";
import { readJson } from "../../../src/http/body.ts";
import { ApiError } from "../../../src/http/errors.ts";
import { emptyOk, jsonOr204 } from "../../../src/http/json.ts";
import { filterYielding } from "../../../src/http/yielding.ts";
import { absoluteUrl, type Routes, type ServiceContext } from "../../../src/http/service.ts";
import { parseWith } from "../../../src/http/validate.ts";
import { METRIC_TYPES, type MetricDefinition, type MetricType, TYPE_PATH } from "../../../src/metrics/model.ts";
import { metricIdSchema, retentionDaysSchema, tagsSchema } from "../../../src/metrics/schemas.ts";
import { metricIdProblem, tagsProblem } from "../../../src/metrics/limits.ts";
import { parseTagNames } from "../../../src/metrics/tag-list.ts";
import { compileTagSelector } from "../../../src/metrics/tag-selector.ts";
import { PatternError, UserPattern } from "../../../src/regex/user-pattern.ts";
import { regexValue, TagQueryError } from "../../../src/tags/query/index.ts";
import type { MetricsDeps } from "./deps.ts";
import { parseQuery, q } from "./query-params.ts";

const definitionBody = z.object({
  id: metricIdSchema,
  type: z.string().optional(),
  tags: tagsSchema.optional(),
  dataRetention: retentionDaysSchema.optional(),
});

const tagsBody = tagsSchema.refine((t) => Object.keys(t).every((k) => k.trim() !== ""), "tag names must not be empty");

const userType = z.enum(METRIC_TYPES, { error: "Metric type is invalid" });

function typeParam(raw: string | undefined): MetricType | undefined {
  if (raw === undefined || raw === "") return undefined;
  const r = userType.safeParse(raw.toLowerCase());
  // Upstream names the type it refuses (`Incorrect type param counter_rate`).
  if (!r.success) throw new ApiError(400, `Incorrect type param ${raw}`);
  return r.data;
}

async function createDefinition(c: ServiceContext, deps: MetricsDeps, fixedType: MetricType | undefined): Promise<Response> {
  const { overwrite } = parseQuery(c, z.object({ overwrite: q.bool("overwrite").optional() }));
  const body = parseWith(definitionBody, await readJson(c), "metric definition");
  let type: MetricType;
  if (fixedType) {
    if (body.type !== undefined && body.type.toLowerCase() !== fixedType) {
      throw new ApiError(400, `Metric type does not match ${fixedType}`);
    }
    type = fixedType;
  } else {
    const r = userType.safeParse(body.type?.toLowerCase());
    if (!r.success) throw new ApiError(400, "Metric type is invalid");
    type = r.data;
  }
  const def: MetricDefinition = { tenantId: c.get("tenant"), id: body.id, type, tags: body.tags, dataRetention: body.dataRetention };
  const result = await deps.store.createMetric(def, overwrite ?? false);
  if (result === "exists") throw new ApiError(409, `A metric with name [${body.id}] already exists`);
  return c.body(null, 201, { Location: absoluteUrl(c, `/${TYPE_PATH[type]}/${encodeURIComponent(body.id)}`) });
}

/**
 * Definitions of the tenant matching the optional type, tags and id. With tags (query language
 * or tag list), `id` is a regular expression over the whole id; without, it is a list of exact
 * ids separated by `|` (0.2x), of any type unless one is given.
 */
async function findDefinitions(
  c: ServiceContext,
  deps: MetricsDeps,
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
async function tagValues(c: ServiceContext, deps: MetricsDeps, type: MetricType | undefined): Promise<Response> {
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
async function tagNames(c: ServiceContext, deps: MetricsDeps): Promise<Response> {
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

export function definitionRoutes(r: Routes, deps: MetricsDeps): void {
  r.post("/metrics", (c) => createDefinition(c, deps, undefined));
  r.get("/metrics/tags", (c) => tagNames(c, deps));
  r.get("/metrics", async (c) => {
    const p = parseQuery(c, z.object({ type: z.string().optional(), tags: z.string().optional(), id: z.string().optional() }));
    return jsonOr204(c, await findDefinitions(c, deps, typeParam(p.type), p.tags, p.id));
  });
  r.get("/metrics/tags/:tags", (c) => tagValues(c, deps, typeParam(c.req.query("type"))));

  for (const type of METRIC_TYPES) {
    const base = `/${TYPE_PATH[type]}`;
    r.post(base, (c) => createDefinition(c, deps, type));
    r.get(base, async (c) => {
      const p = parseQuery(c, z.object({ tags: z.string().optional(), id: z.string().optional() }));
      return jsonOr204(c, await findDefinitions(c, deps, type, p.tags, p.id));
    });
    r.get(`${base}/tags/:tags`, (c) => tagValues(c, deps, type));
  }
}

/** Per-metric definition routes; registered after the static paths of each family. */
export function definitionByIdRoutes(r: Routes, deps: MetricsDeps): void {
  for (const type of METRIC_TYPES) {
    const base = `/${TYPE_PATH[type]}/:id`;
    r.get(base, async (c) => jsonOr204(c, await deps.store.getMetric(c.get("tenant"), type, c.req.param("id")!)));
    r.delete(base, async (c) => {
      const id = c.req.param("id")!;
      if (!(await deps.store.deleteMetric(c.get("tenant"), type, id))) throw new ApiError(404, `Metric [${id}] does not exist`);
      return emptyOk(c);
    });
    r.get(`${base}/tags`, async (c) => {
      const def = await deps.store.getMetric(c.get("tenant"), type, c.req.param("id")!);
      return jsonOr204(c, def?.tags);
    });
    r.put(`${base}/tags`, async (c) => {
      const tags = parseWith(tagsBody, await readJson(c), "tags");
      const id = c.req.param("id")!;
      const idProblem = metricIdProblem(id);
      if (idProblem) throw new ApiError(400, idProblem);
      // The limit holds for the tags the metric ends up with.
      const merged = { ...(await deps.store.getMetric(c.get("tenant"), type, id))?.tags, ...tags };
      const problem = tagsProblem(merged, "metric");
      if (problem) throw new ApiError(400, problem);
      await deps.store.updateTags(c.get("tenant"), type, id, tags);
      return emptyOk(c);
    });
    r.delete(`${base}/tags/:tags`, async (c) => {
      const names = parseTagNames(c.req.param("tags") ?? "");
      await deps.store.deleteTags(c.get("tenant"), type, c.req.param("id")!, names);
      return emptyOk(c);
    });
  }
}
