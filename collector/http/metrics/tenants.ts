import * as z from "zod";
import { authorizeAdmin, authorizeTenant, visibleTenants } from "../../../src/http/access.ts";
import { readJson } from "../../../src/http/body.ts";
import { ApiError } from "../../../src/http/errors.ts";
import { emptyOk, jsonOr204 } from "../../../src/http/json.ts";
import { absoluteUrl, type Routes } from "../../../src/http/service.ts";
import { parseWith } from "../../../src/http/validate.ts";
import { METRIC_TYPES } from "../../../src/metrics/model.ts";
import { retentionDaysSchema } from "../../../src/metrics/schemas.ts";
import type { MetricsDeps } from "./deps.ts";
import { parseQuery, q } from "../../../src/http/metrics/query-params.ts";


const tenantBody = z.object({
  id: z.string().trim().min(1, "tenant id must not be empty"),
  retentions: z
    .record(z.string(), retentionDaysSchema)
    .refine((r) => Object.keys(r).every((k) => (METRIC_TYPES as readonly string[]).includes(k)), {
      message: `retention keys are metric types: ${METRIC_TYPES.join(", ")}`,
    })
    .optional(),
});

export function tenantRoutes(r: Routes, deps: MetricsDeps): void {
  r.post("/tenants", async (c) => {
    const { overwrite } = parseQuery(c, z.object({ overwrite: q.bool("overwrite").optional() }));
    const t = parseWith(tenantBody, await readJson(c), "tenant");
    authorizeTenant(c, t.id);
    const result = await deps.store.createTenant({ id: t.id, retentions: t.retentions }, overwrite ?? false);
    if (result === "exists") throw new ApiError(409, `A tenant with id [${t.id}] already exists`);
    // Upstream answers with the collection URL, not /tenants/{id}.
    return c.body(null, 201, { Location: absoluteUrl(c, "/tenants") });
  });
  // A credential sees the tenants it holds; an admin (or no auth file) sees all.
  r.get("/tenants", async (c) => jsonOr204(c, visibleTenants(c, await deps.store.listTenants(), (t) => t.id)));
  // 0.2x: removes the tenant and all its metrics and points; a tenant that does not exist is no
  // error. Cross-cutting and irreversible, so with an auth file it takes an admin credential.
  r.delete("/tenants/:id", async (c) => {
    authorizeAdmin(c, "DELETE /tenants/{id}");
    await deps.store.deleteTenant(c.req.param("id")!);
    return emptyOk(c);
  });
}
