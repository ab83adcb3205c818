import type { TriggerMode } from "../../../src/alerts/model.ts";
import { conditionsSchema, dampeningSchema, fullTriggerSchema, parseTriggerMode, triggerSchema } from "../../../src/alerts/schemas.ts";
import { parseLegacyTags, parseTagQuery } from "../../../src/tags/query/index.ts";
import { readJson } from "../../../src/http/body.ts";
import { ApiError } from "../../../src/http/errors.ts";
import type { ServiceContext } from "../../../src/http/service.ts";
import { parseWith } from "../../../src/http/validate.ts";
import { jsonBody } from "./body.ts";
import type { AlertsHttpDeps } from "./deps.ts";
import { PAGING_PARAMS } from "./query.ts";
import { done, ok, pageResponse } from "./respond.ts";
import type { Route } from "./router.ts";

const tenant = (c: ServiceContext) => c.get("tenant");
const param = (c: ServiceContext, name: string) => c.req.param(name)!;

/** A trigger mode from the path, case-insensitive. */
export function pathMode(c: ServiceContext): TriggerMode {
  const raw = param(c, "triggerMode");
  const mode = parseTriggerMode(raw);
  if (!mode) throw new ApiError(400, `Invalid triggerMode [${raw}]: expected FIRING or AUTORESOLVE`);
  return mode;
}

/**
 * Conditions sent for one mode: a condition without a mode takes the path's, one with another
 * mode is a 400 (upstream's rule).
 */
export async function conditionsForMode(c: ServiceContext, mode: TriggerMode, pick?: (body: unknown) => unknown) {
  const raw = await readJson(c);
  const list = pick ? pick(raw) : raw;
  if (Array.isArray(list)) {
    list.forEach((x, i) => {
      if (x === null || typeof x !== "object") return;
      const given = (x as { triggerMode?: unknown }).triggerMode;
      if (given === undefined || given === null) (x as { triggerMode?: unknown }).triggerMode = mode;
      else if (String(given).toUpperCase() !== mode) {
        throw new ApiError(400, `Condition ${i} has a different triggerMode [${String(given)}] than the path [${mode}]`);
      }
    });
  }
  return raw;
}

/** A dampening update keeps its mode: when the body names none, the existing one is used. */
export async function dampeningUpdateBody(c: ServiceContext, existingMode: TriggerMode) {
  const raw = await readJson(c);
  if (raw !== null && typeof raw === "object" && !Array.isArray(raw)) {
    const r = raw as { triggerMode?: unknown };
    if (r.triggerMode === undefined || r.triggerMode === null) r.triggerMode = existingMode;
  }
  return parseWith(dampeningSchema, raw, "Dampening");
}

/** Standalone triggers, their conditions and dampenings, and enablement (spec "Triggers" and research §2.2). */
export function triggerRoutes(route: Route, { alerting }: AlertsHttpDeps): void {
  const triggers = alerting.triggers;

  route("get", "/triggers", ["triggerIds", "tags", "tagQuery", "thin", ...PAGING_PARAMS], async (c, q) => {
    q.bool("thin"); // accepted for compatibility: a trigger has no evaluation details to leave out
    const tags = q.str("tags");
    const tagQuery = q.str("tagQuery");
    const tagQueries = [...(tags ? [parseLegacyTags(tags)] : []), ...(tagQuery ? [parseTagQuery(tagQuery)] : [])];
    return pageResponse(c, await triggers.list(tenant(c), { triggerIds: q.list("triggerIds"), tagQueries }, q.pager()));
  });

  route("post", "/triggers", [], async (c) => ok(c, await triggers.create(tenant(c), await jsonBody(c, triggerSchema, "Trigger"))));

  route("post", "/triggers/trigger", [], async (c) => ok(c, await triggers.createFull(tenant(c), await jsonBody(c, fullTriggerSchema, "FullTrigger"))));

  route("get", "/triggers/trigger/:triggerId", [], async (c) => ok(c, await triggers.getFull(tenant(c), param(c, "triggerId"))));

  route("put", "/triggers/trigger/:triggerId", [], async (c) =>
    ok(c, await triggers.updateFull(tenant(c), param(c, "triggerId"), await jsonBody(c, fullTriggerSchema, "FullTrigger"))),
  );

  route("put", "/triggers/enabled", ["triggerIds", "enabled"], async (c, q) => {
    const ids = q.list("triggerIds");
    if (!ids) throw new ApiError(400, "TriggerIds must be non empty.");
    const enabled = q.bool("enabled");
    if (enabled === undefined) throw new ApiError(400, "Enabled must be non-empty.");
    await triggers.setEnabled(tenant(c), ids, enabled);
    return done(c);
  });
}

/** The per-trigger paths, registered after the group paths so that `/triggers/groups/...` is never read as a trigger id. */
export function triggerByIdRoutes(route: Route, { alerting }: AlertsHttpDeps): void {
  const triggers = alerting.triggers;
  const id = (c: ServiceContext) => param(c, "triggerId");

  route("get", "/triggers/:triggerId", [], async (c) => ok(c, await triggers.get(tenant(c), id(c))));
  route("put", "/triggers/:triggerId", [], async (c) => ok(c, await triggers.update(tenant(c), id(c), await jsonBody(c, triggerSchema, "Trigger"))));
  route("delete", "/triggers/:triggerId", [], async (c) => {
    await triggers.remove(tenant(c), id(c));
    return done(c);
  });

  route("get", "/triggers/:triggerId/conditions", [], async (c) => ok(c, await triggers.conditions(tenant(c), id(c))));
  route("put", "/triggers/:triggerId/conditions", [], async (c) =>
    ok(c, await triggers.setConditions(tenant(c), id(c), await jsonBody(c, conditionsSchema, "conditions"))),
  );
  route("put", "/triggers/:triggerId/conditions/:triggerMode", [], async (c) => {
    const mode = pathMode(c);
    const inputs = parseWith(conditionsSchema, await conditionsForMode(c, mode), "conditions");
    return ok(c, await triggers.setConditions(tenant(c), id(c), inputs, mode));
  });

  route("get", "/triggers/:triggerId/dampenings", [], async (c) => ok(c, await triggers.dampenings(tenant(c), id(c))));
  route("post", "/triggers/:triggerId/dampenings", [], async (c) =>
    ok(c, await triggers.createDampening(tenant(c), id(c), await jsonBody(c, dampeningSchema, "Dampening"))),
  );
  route("get", "/triggers/:triggerId/dampenings/mode/:triggerMode", [], async (c) => ok(c, await triggers.dampenings(tenant(c), id(c), pathMode(c))));
  route("get", "/triggers/:triggerId/dampenings/:dampeningId", [], async (c) =>
    ok(c, await triggers.dampening(tenant(c), id(c), param(c, "dampeningId"))),
  );
  route("put", "/triggers/:triggerId/dampenings/:dampeningId", [], async (c) => {
    const existing = await triggers.dampening(tenant(c), id(c), param(c, "dampeningId"));
    const input = await dampeningUpdateBody(c, existing.triggerMode);
    return ok(c, await triggers.updateDampening(tenant(c), id(c), param(c, "dampeningId"), input));
  });
  route("delete", "/triggers/:triggerId/dampenings/:dampeningId", [], async (c) =>
    ok(c, await triggers.deleteDampening(tenant(c), id(c), param(c, "dampeningId"))),
  );
}
