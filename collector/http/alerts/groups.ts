import {
  dampeningSchema,
  groupConditionsInfoSchema,
  groupMemberInfoSchema,
  triggerSchema,
  unorphanMemberInfoSchema,
} from "../../../src/alerts/schemas.ts";
import { ApiError } from "../../../src/http/errors.ts";
import type { ServiceContext } from "../../../src/http/service.ts";
import { parseWith } from "../../../src/http/validate.ts";
import { jsonBody } from "./body.ts";
import type { AlertsHttpDeps } from "./deps.ts";
import { done, ok } from "./respond.ts";
import type { Route } from "./router.ts";
import { conditionsForMode, dampeningUpdateBody, pathMode } from "./triggers.ts";

const tenant = (c: ServiceContext) => c.get("tenant");
const param = (c: ServiceContext, name: string) => c.req.param(name)!;

/** Group triggers and members (research §2.2). Orphan and unorphan take PUT (second version) and POST (first). */
export function groupRoutes(route: Route, { alerting }: AlertsHttpDeps): void {
  const groups = alerting.groups;
  const groupId = (c: ServiceContext) => param(c, "groupId");

  route("post", "/triggers/groups", [], async (c) => ok(c, await groups.create(tenant(c), await jsonBody(c, triggerSchema, "Trigger"))));

  route("put", "/triggers/groups/enabled", ["triggerIds", "enabled"], async (c, q) => {
    const ids = q.list("triggerIds");
    if (!ids) throw new ApiError(400, "TriggerIds must be non empty.");
    const enabled = q.bool("enabled");
    if (enabled === undefined) throw new ApiError(400, "Enabled must be non-empty.");
    await groups.setEnabled(tenant(c), ids, enabled);
    return done(c);
  });

  route("post", "/triggers/groups/members", [], async (c) =>
    ok(c, await groups.addMember(tenant(c), await jsonBody(c, groupMemberInfoSchema, "GroupMemberInfo"))),
  );

  route(["put", "post"], "/triggers/groups/members/:memberId/orphan", [], async (c) =>
    ok(c, await groups.orphan(tenant(c), param(c, "memberId"))),
  );

  route(["put", "post"], "/triggers/groups/members/:memberId/unorphan", [], async (c) =>
    ok(c, await groups.unorphan(tenant(c), param(c, "memberId"), await jsonBody(c, unorphanMemberInfoSchema, "UnorphanMemberInfo"))),
  );

  route("put", "/triggers/groups/:groupId", [], async (c) => ok(c, await groups.update(tenant(c), groupId(c), await jsonBody(c, triggerSchema, "Trigger"))));

  route("delete", "/triggers/groups/:groupId", ["keepNonOrphans", "keepOrphans"], async (c, q) => {
    await groups.remove(tenant(c), groupId(c), q.bool("keepNonOrphans") ?? false, q.bool("keepOrphans") ?? false);
    return done(c);
  });

  route("get", "/triggers/groups/:groupId/members", ["includeOrphans"], async (c, q) =>
    ok(c, await groups.members(tenant(c), groupId(c), q.bool("includeOrphans") ?? false)),
  );

  route("put", "/triggers/groups/:groupId/conditions", [], async (c) =>
    ok(c, await groups.setConditions(tenant(c), groupId(c), await jsonBody(c, groupConditionsInfoSchema, "GroupConditionsInfo"))),
  );

  route("put", "/triggers/groups/:groupId/conditions/:triggerMode", [], async (c) => {
    const mode = pathMode(c);
    const raw = await conditionsForMode(c, mode, (b) => (b !== null && typeof b === "object" ? (b as { conditions?: unknown }).conditions : undefined));
    return ok(c, await groups.setConditions(tenant(c), groupId(c), parseWith(groupConditionsInfoSchema, raw, "GroupConditionsInfo"), mode));
  });

  route("post", "/triggers/groups/:groupId/dampenings", [], async (c) =>
    ok(c, await groups.createDampening(tenant(c), groupId(c), await jsonBody(c, dampeningSchema, "Dampening"))),
  );

  route("put", "/triggers/groups/:groupId/dampenings/:dampeningId", [], async (c) => {
    const existing = await alerting.triggers.dampening(tenant(c), groupId(c), param(c, "dampeningId"));
    const input = await dampeningUpdateBody(c, existing.triggerMode);
    return ok(c, await groups.updateDampening(tenant(c), groupId(c), param(c, "dampeningId"), input));
  });

  route("delete", "/triggers/groups/:groupId/dampenings/:dampeningId", [], async (c) =>
    ok(c, await groups.deleteDampening(tenant(c), groupId(c), param(c, "dampeningId"))),
  );
}
