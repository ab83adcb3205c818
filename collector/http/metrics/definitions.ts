import * as z from "zod";
import { readJson } from "../../../src/http/body.ts";
import { ApiError } from "../../../src/http/errors.ts";
import { emptyOk, } from "../../../src/http/json.ts";
import { absoluteUrl, type Routes, type ServiceContext } from "../../../src/http/service.ts";
import { parseWith } from "../../../src/http/validate.ts";
import { METRIC_TYPES, type MetricDefinition, type MetricType, TYPE_PATH } from "../../../src/metrics/model.ts";
import { metricIdSchema, retentionDaysSchema, tagsSchema } from "../../../src/metrics/schemas.ts";
import { metricIdProblem, tagsProblem } from "../../../src/metrics/limits.ts";
import { parseTagNames } from "../../../src/metrics/tag-list.ts";
import type { MetricsDeps } from "./deps.ts";
import { definitionReadByIdRoutes, definitionReadRoutes, userType } from "../../../src/http/metrics/definition-reads.ts";
import { parseQuery, q } from "../../../src/http/metrics/query-params.ts";

const definitionBody = z.object({
  id: metricIdSchema,
  type: z.string().optional(),
  tags: tagsSchema.optional(),
  dataRetention: retentionDaysSchema.optional(),
});

const tagsBody = tagsSchema.refine((t) => Object.keys(t).every((k) => k.trim() !== ""), "tag names must not be empty");

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

export function definitionRoutes(r: Routes, deps: MetricsDeps): void {
  r.post("/metrics", (c) => createDefinition(c, deps, undefined));
  for (const type of METRIC_TYPES) r.post(`/${TYPE_PATH[type]}`, (c) => createDefinition(c, deps, type));
  definitionReadRoutes(r, deps);
}

/** Per-metric definition routes; registered after the static paths of each family. */
export function definitionByIdRoutes(r: Routes, deps: MetricsDeps): void {
  definitionReadByIdRoutes(r, deps);
  for (const type of METRIC_TYPES) {
    const base = `/${TYPE_PATH[type]}/:id`;
    r.delete(base, async (c) => {
      const id = c.req.param("id")!;
      if (!(await deps.store.deleteMetric(c.get("tenant"), type, id))) throw new ApiError(404, `Metric [${id}] does not exist`);
      return emptyOk(c);
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
