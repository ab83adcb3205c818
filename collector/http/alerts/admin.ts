import { authorizeAdmin } from "../../../src/http/access.ts";
import { renderAlert } from "./alerts.ts";
import { ALERT_FILTERS, alertCriteria, EVENT_FILTERS, eventCriteria } from "./criteria.ts";
import type { AlertsHttpDeps } from "./deps.ts";
import { renderEvent } from "./events.ts";
import { PAGING_PARAMS } from "./query.ts";
import { pageResponse } from "./respond.ts";
import type { Route, RouteHandler } from "./router.ts";
import { tenantsOf, WATCH_ALERT_PARAMS, WATCH_EVENT_PARAMS, watchAlertsHandler, watchEventsHandler } from "./watch.ts";

/**
 * Cross-tenant reads and watches: the tenant header holds a comma-separated list (spec
 * "Cross-tenant operations"). With an auth file they need an admin credential: a list in a
 * header must not be a way around the tenants a credential holds.
 */
export function adminRoutes(guarded: Route, deps: AlertsHttpDeps): void {
  const { alerting } = deps;
  const route: Route = (method, path, params, h: RouteHandler) =>
    guarded(method, path, params, (c, q) => {
      authorizeAdmin(c, `${path} (cross-tenant)`);
      return h(c, q);
    });

  route("get", "/admin/alerts", [...ALERT_FILTERS, "thin", ...PAGING_PARAMS], async (c, q) => {
    const page = await alerting.alerts.find(tenantsOf(c), alertCriteria(q), q.pager());
    return pageResponse(c, page, renderAlert(q.bool("thin") ?? false));
  });

  route("get", "/admin/events", [...EVENT_FILTERS, "thin", ...PAGING_PARAMS], async (c, q) => {
    const page = await alerting.events.find(tenantsOf(c), eventCriteria(q), q.pager());
    return pageResponse(c, page, renderEvent(q.bool("thin") ?? false));
  });

  route("get", "/admin/watch/alerts", WATCH_ALERT_PARAMS, watchAlertsHandler(deps, tenantsOf));
  route("get", "/admin/watch/events", WATCH_EVENT_PARAMS, watchEventsHandler(deps, tenantsOf));
}
