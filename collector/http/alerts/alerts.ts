import { dataListSchema } from "../../../src/alerts/schemas.ts";
import type { Alert } from "../../../src/alerts/model.ts";
import { ApiError } from "../../../src/http/errors.ts";
import type { ServiceContext } from "../../../src/http/service.ts";
import { thinAlert } from "../../alerts/criteria.ts";
import { jsonBody } from "./body.ts";
import { ALERT_FILTERS, alertCriteria } from "./criteria.ts";
import type { AlertsHttpDeps } from "./deps.ts";
import { PAGING_PARAMS } from "./query.ts";
import { done, ok, pageResponse } from "./respond.ts";
import type { Route } from "./router.ts";
import { parseTagMap } from "./tag-params.ts";

const tenant = (c: ServiceContext) => c.get("tenant");
const param = (c: ServiceContext, name: string) => c.req.param(name)!;

/** Users who do not say who they are. */
const ANONYMOUS = "unknown";

export const renderAlert = (thin: boolean) => (a: Alert) => (thin ? thinAlert(a) : a);

/** Alerts: queries, lifecycle, notes, tags, deletes, and data for evaluation (spec "Alerts"). */
export function alertRoutes(route: Route, { alerting }: AlertsHttpDeps): void {
  const alerts = alerting.alerts;

  route("get", "/", [...ALERT_FILTERS, "thin", ...PAGING_PARAMS], async (c, q) => {
    const page = await alerts.find([tenant(c)], alertCriteria(q), q.pager());
    return pageResponse(c, page, renderAlert(q.bool("thin") ?? false));
  });

  // The second version lists GET as PUT; both are served.
  route(["get", "put"], "/alert/:alertId", ["thin"], async (c, q) => {
    return ok(c, renderAlert(q.bool("thin") ?? false)(await alerts.get(tenant(c), param(c, "alertId"))));
  });

  route("put", "/ack", ["alertIds", "ackBy", "ackNotes"], async (c, q) => {
    const ids = q.list("alertIds");
    if (!ids) throw new ApiError(400, "AlertIds required for ack");
    await alerts.ack(tenant(c), ids, q.str("ackBy") ?? ANONYMOUS, q.str("ackNotes"));
    return done(c);
  });

  route("put", "/ack/:alertId", ["ackBy", "ackNotes"], async (c, q) => {
    await alerts.ack(tenant(c), [param(c, "alertId")], q.str("ackBy") ?? ANONYMOUS, q.str("ackNotes"), true);
    return done(c);
  });

  route("put", "/resolve", ["alertIds", "resolvedBy", "resolvedNotes"], async (c, q) => {
    const ids = q.list("alertIds");
    if (!ids) throw new ApiError(400, "AlertIds required for resolve");
    await alerts.resolve(tenant(c), ids, q.str("resolvedBy") ?? ANONYMOUS, q.str("resolvedNotes"));
    return done(c);
  });

  route("put", "/resolve/:alertId", ["resolvedBy", "resolvedNotes"], async (c, q) => {
    await alerts.resolve(tenant(c), [param(c, "alertId")], q.str("resolvedBy") ?? ANONYMOUS, q.str("resolvedNotes"), true);
    return done(c);
  });

  route("put", "/note/:alertId", ["user", "text"], async (c, q) => {
    const user = q.required("user", "User and text required for a note");
    const text = q.required("text", "User and text required for a note");
    await alerts.note(tenant(c), param(c, "alertId"), user, text);
    return done(c);
  });

  route("put", "/tags", ["alertIds", "tags"], async (c, q) => {
    const ids = q.list("alertIds");
    const tags = q.str("tags");
    if (!ids || !tags) throw new ApiError(400, "AlertIds and Tags required for adding tags");
    await alerts.addTags(tenant(c), ids, parseTagMap(tags));
    return done(c);
  });

  route("delete", "/tags", ["alertIds", "tagNames"], async (c, q) => {
    const ids = q.list("alertIds");
    const names = q.list("tagNames");
    if (!ids || !names) throw new ApiError(400, "AlertIds and Tags required for removing tags");
    await alerts.removeTags(tenant(c), ids, names);
    return done(c);
  });

  route("post", "/data", [], async (c) => {
    const data = await jsonBody(c, dataListSchema, "Data");
    if (data.length === 0) throw new ApiError(400, "Data is empty");
    await alerting.data.sendData(tenant(c), data);
    return done(c);
  });

  // PUT (first version) and DELETE (second version) delete by filter.
  route(["put", "delete"], "/delete", [...ALERT_FILTERS, "thin", "alertId"], async (c, q) => {
    const criteria = alertCriteria(q);
    const one = q.str("alertId");
    if (one !== undefined) criteria.ids = [...(criteria.ids ?? []), one];
    const deleted = await alerts.deleteMatching(tenant(c), criteria);
    if (one !== undefined && deleted === 0) throw new ApiError(404, `Alert ${one} doesn't exist for delete`);
    return ok(c, { deleted });
  });
}

/** One-segment paths of other resources: DELETE on them is a wrong method, not an alert id. */
const RESOURCES = new Set(["triggers", "events", "actions", "plugins", "export", "status", "watch", "data", "ack", "resolve", "admin", "import"]);

/** Registered last: `/{alertId}` would otherwise capture the one-segment paths of other resources. */
export function alertByIdRoutes(route: Route, { alerting }: AlertsHttpDeps): void {
  route("delete", "/:alertId", [], async (c) => {
    const id = param(c, "alertId");
    if (RESOURCES.has(id)) return c.json({ errorMsg: `Method DELETE is not supported on this resource` }, 405);
    const deleted = await alerting.alerts.deleteMatching(tenant(c), { ids: [id] });
    if (deleted === 0) throw new ApiError(404, `Alert ${id} doesn't exist for delete`);
    return ok(c, { deleted });
  });
}
