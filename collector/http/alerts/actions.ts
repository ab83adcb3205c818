import { actionDefinitionSchema } from "../../../src/alerts/schemas.ts";
import type { ServiceContext } from "../../../src/http/service.ts";
import { jsonBody } from "./body.ts";
import { ACTION_FILTERS, actionCriteria } from "./criteria.ts";
import type { AlertsHttpDeps } from "./deps.ts";
import { PAGING_PARAMS } from "./query.ts";
import { ok, pageResponse } from "./respond.ts";
import type { Route } from "./router.ts";

const tenant = (c: ServiceContext) => c.get("tenant");
const param = (c: ServiceContext, name: string) => c.req.param(name)!;

/** Action definitions, plugins and the action history (spec "Actions and plugins"). */
export function actionRoutes(route: Route, { alerting }: AlertsHttpDeps): void {
  const actions = alerting.actions;
  const history = alerting.history;

  route("get", "/plugins", [], (c) => ok(c, actions.plugins()));
  route("get", "/plugins/:actionPlugin", [], (c) => ok(c, actions.pluginProperties(param(c, "actionPlugin"))));

  route("get", "/actions", [], async (c) => ok(c, await actions.byPlugin(tenant(c))));
  route("post", "/actions", [], async (c) => ok(c, await actions.create(tenant(c), await jsonBody(c, actionDefinitionSchema, "ActionDefinition"))));
  route("put", "/actions", [], async (c) => ok(c, await actions.update(tenant(c), await jsonBody(c, actionDefinitionSchema, "ActionDefinition"))));

  route("get", "/actions/history", [...ACTION_FILTERS, "thin", ...PAGING_PARAMS], async (c, q) =>
    pageResponse(c, await history.find(tenant(c), actionCriteria(q), q.pager(), q.bool("thin") ?? false)),
  );
  route(["put", "delete"], "/actions/history/delete", ACTION_FILTERS, async (c, q) =>
    ok(c, { deleted: await history.deleteMatching(tenant(c), actionCriteria(q)) }),
  );

  route("get", "/actions/plugin/:actionPlugin", [], async (c) => ok(c, await actions.ids(tenant(c), param(c, "actionPlugin"))));
  route("get", "/actions/:actionPlugin/:actionId", [], async (c) =>
    ok(c, await actions.get(tenant(c), param(c, "actionPlugin"), param(c, "actionId"))),
  );
  // The second version answers the deleted definition; the first answered no body.
  route("delete", "/actions/:actionPlugin/:actionId", [], async (c) =>
    ok(c, await actions.remove(tenant(c), param(c, "actionPlugin"), param(c, "actionId"))),
  );
}
