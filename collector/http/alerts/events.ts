import * as z from "zod";
import type { Event } from "../../../src/alerts/model.ts";
import { eventSchema, externalEventSchema } from "../../../src/alerts/schemas.ts";
import { ApiError } from "../../../src/http/errors.ts";
import type { ServiceContext } from "../../../src/http/service.ts";
import { thinEvent } from "../../alerts/criteria.ts";
import { jsonBody } from "./body.ts";
import { EVENT_FILTERS, eventCriteria } from "./criteria.ts";
import type { AlertsHttpDeps } from "./deps.ts";
import { PAGING_PARAMS } from "./query.ts";
import { done, ok, pageResponse } from "./respond.ts";
import type { Route } from "./router.ts";
import { parseTagMap } from "./tag-params.ts";

const tenant = (c: ServiceContext) => c.get("tenant");
const param = (c: ServiceContext, name: string) => c.req.param(name)!;

export const renderEvent = (thin: boolean) => (e: Event) => (thin ? thinEvent(e) : e);

/** Events: queries, creation, evaluation-only events, tags, deletes (spec "Events"). */
export function eventRoutes(route: Route, { alerting }: AlertsHttpDeps): void {
  const events = alerting.events;

  route("get", "/events", [...EVENT_FILTERS, "thin", ...PAGING_PARAMS], async (c, q) => {
    const page = await events.find([tenant(c)], eventCriteria(q), q.pager());
    return pageResponse(c, page, renderEvent(q.bool("thin") ?? false));
  });

  route("post", "/events", [], async (c) => ok(c, await events.create(tenant(c), await jsonBody(c, eventSchema, "Event"))));

  route("post", "/events/data", [], async (c) => {
    const list = await jsonBody(c, z.array(externalEventSchema), "Events");
    if (list.length === 0) throw new ApiError(400, "Events are empty");
    await alerting.data.sendEvents(tenant(c), list);
    return done(c);
  });

  route("put", "/events/delete", [...EVENT_FILTERS, "eventId"], async (c, q) => {
    const criteria = eventCriteria(q);
    const one = q.str("eventId");
    if (one !== undefined) criteria.ids = [...(criteria.ids ?? []), one];
    return ok(c, { deleted: await events.deleteMatching(tenant(c), criteria) });
  });

  route("get", "/events/event/:eventId", ["thin"], async (c, q) =>
    ok(c, renderEvent(q.bool("thin") ?? false)(await events.get(tenant(c), param(c, "eventId")))),
  );

  route("put", "/events/tags", ["eventIds", "tags"], async (c, q) => {
    const ids = q.list("eventIds");
    const tags = q.str("tags");
    if (!ids || !tags) throw new ApiError(400, "EventIds and Tags required for adding tags");
    await events.addTags(tenant(c), ids, parseTagMap(tags));
    return done(c);
  });

  route("delete", "/events/tags", ["eventIds", "tagNames"], async (c, q) => {
    const ids = q.list("eventIds");
    const names = q.list("tagNames");
    if (!ids || !names) throw new ApiError(400, "EventIds and Tags required for removing tags");
    await events.removeTags(tenant(c), ids, names);
    return done(c);
  });

  route("delete", "/events/:eventId", [], async (c) => {
    const id = param(c, "eventId");
    const deleted = await events.deleteMatching(tenant(c), { ids: [id] });
    if (deleted === 0) throw new ApiError(404, `Event ${id} doesn't exist for delete`);
    return ok(c, { deleted });
  });
}
