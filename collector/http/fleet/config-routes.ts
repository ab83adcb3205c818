import * as z from "zod";
import { readJson } from "../../../src/http/body.ts";
import { ApiError } from "../../../src/http/errors.ts";
import { jsonOr204 } from "../../../src/http/json.ts";
import { parseQuery, q } from "../../../src/http/metrics/query-params.ts";
import { absoluteUrl, type Routes, type ServiceContext } from "../../../src/http/service.ts";
import { checkConfig } from "../../fleet/config-rules.ts";
import type { FleetServices } from "../../fleet/services.ts";

const listQuery = z
  .object({
    limit: q
      .int32("limit")
      .optional()
      .transform((n) => n ?? 100)
      .refine((n) => n >= 1 && n <= 10_000, "limit must be between 1 and 10000"),
  })
  .strict();

function revisionNumber(c: ServiceContext): number {
  const text = c.req.param("revision") ?? "";
  const n = Number(text);
  if (!/^\d{1,15}$/.test(text) || n < 1) throw new ApiError(400, `'${text}' is not a revision number (1, 2, 3…)`);
  return n;
}

/**
 * Remote configuration (docs/fleet.md): numbered revisions for a feed, the feeds with given
 * tags, or all, checked by the agent's own schema; each feed's desired and applied revision.
 */
export function configRoutes(r: Routes, fleet: FleetServices): void {
  const configs = fleet.configs;
  r.get("/config/revisions", async (c) => {
    const p = parseQuery(c, listQuery);
    return jsonOr204(c, await configs.revisions(c.get("tenant"), p.limit));
  });

  r.post("/config/revisions", async (c) => {
    const rev = await configs.add(c.get("tenant"), await readJson(c), c.get("access")?.name ?? "anonymous");
    return c.json(rev, 201, { Location: absoluteUrl(c, `/config/revisions/${rev.revision}`) });
  });

  r.get("/config/revisions/:revision", async (c) => {
    const n = revisionNumber(c);
    const rev = await configs.revision(c.get("tenant"), n);
    if (!rev) throw new ApiError(404, `No configuration revision ${n} in tenant '${c.get("tenant")}'`);
    return c.json(rev);
  });

  // The console's editor checks as the user types; nothing is stored. The answer is the check's
  // outcome (200 either way); only a body that holds no configuration is a 400.
  r.post("/config/check", async (c) => {
    const body = (await readJson(c)) as { config?: unknown } | null;
    if (body === null || typeof body !== "object" || !("config" in body)) throw new ApiError(400, 'expected {"config": {option: value, …}}');
    try {
      checkConfig(body.config);
    } catch (e) {
      if (e instanceof ApiError && e.status === 400) return c.json({ valid: false, errorMsg: e.message });
      throw e;
    }
    return c.json({ valid: true });
  });

  r.get("/config/feeds", async (c) => {
    const views = await configs.views(c.get("tenant"));
    return jsonOr204(
      c,
      [...views].map(([feed, v]) => ({ feed, ...v })),
    );
  });

  r.get("/feeds/:feed/config", async (c) => {
    const tenant = c.get("tenant");
    const feed = c.req.param("feed") ?? "";
    const view = (await configs.views(tenant, [feed])).get(feed)!;
    const [desired, applied] = await Promise.all([view.desired > 0 ? configs.revision(tenant, view.desired) : undefined, view.applied > 0 ? configs.revision(tenant, view.applied) : undefined]);
    return c.json({ feed, ...view, ...(desired ? { desiredRevision: desired } : {}), ...(applied ? { appliedRevision: applied } : {}) });
  });
}
