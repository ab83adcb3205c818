import type { Alert, Event, EventType } from "../../src/alerts/model.ts";
import { matchesTags, type TagQuery } from "../../src/tags/query/index.ts";
import type { AlertRows, EventRows } from "../store/alerts/types.ts";

/** The spec's alert filter parameters, parsed. Every given criterion must hold. */
export interface AlertCriteria extends Omit<AlertRows, "tenants" | "statusTimeAfter"> {
  /** The tag query and/or the deprecated `tags` filter; each must match. */
  tagQueries?: TagQuery[];
  /** Some lifecycle state (any, not only the current one) within these bounds. */
  startStatusTime?: number;
  endStatusTime?: number;
}

export interface EventCriteria extends Omit<EventRows, "tenants" | "ctimeAfter"> {
  tagQueries?: TagQuery[];
  /** Alerts are events too: without this, event queries and streams return both. */
  eventType?: EventType;
}

const within = (t: number | undefined, min: number | undefined, max: number | undefined) =>
  t !== undefined && (min === undefined || t >= min) && (max === undefined || t <= max);

function lastStime(a: Alert, status: string): number | undefined {
  for (let i = a.lifecycle.length - 1; i >= 0; i--) if (a.lifecycle[i]!.status === status) return a.lifecycle[i]!.stime;
  return undefined;
}

const has = <T>(list: readonly T[] | undefined, v: T | undefined) => list === undefined || (v !== undefined && list.includes(v));

/** Criteria without their time bounds: what a watch stream keeps applying after its first query. */
export function withoutTimes<C extends AlertCriteria | EventCriteria>(c: C): C {
  const {
    startTime: _s,
    endTime: _e,
    ...rest
  } = c as AlertCriteria;
  const {
    startAckTime: _a,
    endAckTime: _b,
    startResolvedTime: _c,
    endResolvedTime: _d,
    startStatusTime: _f,
    endStatusTime: _g,
    ...out
  } = rest;
  return out as C;
}

/** Whether an alert satisfies every criterion (the store narrows; this decides). */
export function alertMatches(a: Alert, c: AlertCriteria): boolean {
  if ((c.startTime !== undefined || c.endTime !== undefined) && !within(a.ctime, c.startTime, c.endTime)) return false;
  if (!has(c.ids, a.id) || !has(c.triggerIds, a.trigger?.id) || !has(c.statuses, a.status) || !has(c.severities, a.severity)) return false;
  if ((c.startAckTime !== undefined || c.endAckTime !== undefined) && !within(lastStime(a, "ACKNOWLEDGED"), c.startAckTime, c.endAckTime)) return false;
  if (
    (c.startResolvedTime !== undefined || c.endResolvedTime !== undefined) &&
    !within(lastStime(a, "RESOLVED"), c.startResolvedTime, c.endResolvedTime)
  ) {
    return false;
  }
  if (
    (c.startStatusTime !== undefined || c.endStatusTime !== undefined) &&
    !a.lifecycle.some((l) => within(l.stime, c.startStatusTime, c.endStatusTime))
  ) {
    return false;
  }
  return (c.tagQueries ?? []).every((q) => matchesTags(q, a.tags));
}

export function eventMatches(e: Event, c: EventCriteria): boolean {
  if (c.eventType !== undefined && e.eventType !== c.eventType) return false;
  if ((c.startTime !== undefined || c.endTime !== undefined) && !within(e.ctime, c.startTime, c.endTime)) return false;
  if (!has(c.ids, e.id) || !has(c.triggerIds, e.trigger?.id) || !has(c.categories, e.category)) return false;
  return (c.tagQueries ?? []).every((q) => matchesTags(q, e.tags));
}

/** The current lifecycle state's time: what alert watch streams are ordered and followed by. */
export function statusTime(a: Alert): number {
  return a.lifecycle.length > 0 ? a.lifecycle[a.lifecycle.length - 1]!.stime : a.ctime;
}

/** Evaluation details dropped from thin results. */
export function thinAlert(a: Alert): Alert {
  const { evalSets: _e, resolvedEvalSets: _r, dampening: _d, ...rest } = a;
  return rest as Alert;
}

export function thinEvent(e: Event): Event {
  const { evalSets: _e, dampening: _d, ...rest } = e;
  return rest as Event;
}
