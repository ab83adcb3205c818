import { ALERT_STATUSES, EVENT_TYPES, SEVERITIES } from "../../../src/alerts/model.ts";
import { parseLegacyTags, parseTagQuery, type TagQuery } from "../../../src/tags/query/index.ts";
import type { ActionCriteria } from "../../alerts/action-history.ts";
import type { AlertCriteria, EventCriteria } from "../../alerts/criteria.ts";
import type { QueryParams } from "./query.ts";

/**
 * The filter parameters of alert queries (GET /, PUT|DELETE /delete, GET /watch, admin).
 * `entTime` is the second version's spelling of `endTime`; both are read.
 */
export const ALERT_FILTERS = [
  "startTime",
  "endTime",
  "entTime",
  "alertIds",
  "triggerIds",
  "statuses",
  "severities",
  "tags",
  "tagQuery",
  "startResolvedTime",
  "endResolvedTime",
  "startAckTime",
  "endAckTime",
  "startStatusTime",
  "endStatusTime",
] as const;

export const EVENT_FILTERS = ["startTime", "endTime", "entTime", "eventIds", "triggerIds", "categories", "tags", "tagQuery", "eventType"] as const;

export const ACTION_FILTERS = ["startTime", "endTime", "actionPlugins", "actionIds", "alertIds", "eventIds", "results"] as const;

/** `tagQuery` and the deprecated `tags` (`name|value,...`); when both are given, both must match. */
function tagQueries(q: QueryParams): TagQuery[] | undefined {
  const out: TagQuery[] = [];
  const legacy = q.str("tags");
  const query = q.str("tagQuery");
  if (legacy !== undefined) out.push(parseLegacyTags(legacy));
  if (query !== undefined) out.push(parseTagQuery(query));
  return out.length > 0 ? out : undefined;
}

function endTime(q: QueryParams): number | undefined {
  return q.int("endTime") ?? q.int("entTime");
}

export function alertCriteria(q: QueryParams): AlertCriteria {
  return {
    startTime: q.int("startTime"),
    endTime: endTime(q),
    ids: q.list("alertIds"),
    triggerIds: q.list("triggerIds"),
    statuses: q.enumList("statuses", ALERT_STATUSES),
    severities: q.enumList("severities", SEVERITIES),
    tagQueries: tagQueries(q),
    startResolvedTime: q.int("startResolvedTime"),
    endResolvedTime: q.int("endResolvedTime"),
    startAckTime: q.int("startAckTime"),
    endAckTime: q.int("endAckTime"),
    startStatusTime: q.int("startStatusTime"),
    endStatusTime: q.int("endStatusTime"),
  };
}

export function eventCriteria(q: QueryParams): EventCriteria {
  return {
    startTime: q.int("startTime"),
    endTime: endTime(q),
    ids: q.list("eventIds"),
    triggerIds: q.list("triggerIds"),
    categories: q.list("categories"),
    tagQueries: tagQueries(q),
    eventType: q.enumList("eventType", EVENT_TYPES)?.[0],
  };
}

/** `alertIds` (first version) and `eventIds` both name the alerts or events actions ran for. */
export function actionCriteria(q: QueryParams): ActionCriteria {
  const alertIds = q.list("alertIds");
  const eventIds = q.list("eventIds");
  return {
    startTime: q.int("startTime"),
    endTime: q.int("endTime"),
    plugins: q.list("actionPlugins"),
    actionIds: q.list("actionIds"),
    eventIds: alertIds || eventIds ? [...(alertIds ?? []), ...(eventIds ?? [])] : undefined,
    results: q.list("results"),
  };
}
