import { EVENT_TYPES } from "../../../src/alerts/model.ts";
import { renderAlert } from "./alerts.ts";
import { ALERT_FILTERS, alertCriteria, EVENT_FILTERS, eventCriteria } from "./criteria.ts";
import type { AlertsHttpDeps } from "./deps.ts";
import { renderEvent } from "./events.ts";
import { PAGING_PARAMS } from "./query.ts";
import { pageResponse } from "./respond.ts";
import type { Route } from "./router.ts";
import { tenantsOf, WATCH_ALERT_PARAMS, WATCH_EVENT_PARAMS, watchAlertsHandler, watchEventsHandler } from "./watch.ts";

/** Cross-tenant reads and watches: the tenant header holds a comma-separated list (spec "Cross-tenant operations"). */
export function adminRoutes(route: Route, deps: AlertsHttpDeps): void {
  const { alerting } = deps;

  route("get", "/admin/alerts", [...ALERT_FILTERS, "thin", ...PAGING_PARAMS], async (c, q) => {
    const page = await alerting.alerts.find(tenantsOf(c), alertCriteria(q), q.pager());
    return pageResponse(c, page, renderAlert(q.bool("thin") ?? false));
  });

  route("get", "/admin/events", [...EVENT_FILTERS, "eventType", "thin", ...PAGING_PARAMS], async (c, q) => {
    const eventType = q.enumList("eventType", EVENT_TYPES)?.[0];
    const page = await alerting.events.find(tenantsOf(c), eventCriteria(q), q.pager(), eventType);
    return pageResponse(c, page, renderEvent(q.bool("thin") ?? false));
  });

  route("get", "/admin/watch/alerts", WATCH_ALERT_PARAMS, watchAlertsHandler(deps, tenantsOf));
  route("get", "/admin/watch/events", WATCH_EVENT_PARAMS, watchEventsHandler(deps, tenantsOf));
}
