import { stream } from "hono/streaming";
import type { ServiceContext } from "../../../src/http/service.ts";
import type { WatchFeed } from "../../alerts/watch.ts";
import { renderAlert } from "./alerts.ts";
import { ALERT_FILTERS, alertCriteria, EVENT_FILTERS, eventCriteria } from "./criteria.ts";
import type { AlertsHttpDeps } from "./deps.ts";
import { renderEvent } from "./events.ts";
import type { QueryParams } from "./query.ts";
import type { Route } from "./router.ts";

/** Items are separated like upstream's (`\r\n`); a heartbeat is one space, which JSON readers skip. */
const SEPARATOR = "\r\n";
const HEARTBEAT = " ";

/**
 * Streams a watch as newline-delimited JSON: the first query's items, then changes as they
 * happen (with `watchInterval` seconds, at most one batch per interval). While nothing is sent
 * a heartbeat goes out every `heartbeatMs`, so proxies and Bun's idle timeout keep the stream.
 * An error ends the stream after an `{"errorMsg"}` line.
 */
export function streamFeed<T extends { id: string }>(
  c: ServiceContext,
  feed: WatchFeed<T>,
  render: (item: T) => unknown,
  intervalMs: number,
  heartbeatMs: number,
): Response {
  c.header("Content-Type", "application/json");
  c.header("Cache-Control", "no-cache");
  return stream(c, async (s) => {
    s.onAbort(() => feed.close());
    // A credential revoked while watching ends the watch.
    const revoked = c.get("access")?.revoked;
    const onRevoked = () => feed.close();
    revoked?.addEventListener("abort", onRevoked, { once: true });
    let lastWrite = Date.now();
    const send = async (items: readonly T[]) => {
      if (items.length === 0) return;
      await s.write(items.map((i) => JSON.stringify(render(i)) + SEPARATOR).join(""));
      lastWrite = Date.now();
    };
    const beatIfDue = async () => {
      if (Date.now() - lastWrite < heartbeatMs) return;
      await s.write(HEARTBEAT);
      lastWrite = Date.now();
    };
    try {
      await send(feed.initial);
      while (!feed.closed && !s.aborted) {
        const items = await feed.take(heartbeatMs);
        if (feed.closed || s.aborted) break;
        if (items.length === 0) {
          await beatIfDue();
          continue;
        }
        await send(items);
        // rate limit: later changes collect in the feed until the interval is over
        const until = Date.now() + intervalMs;
        while (!feed.closed && !s.aborted && Date.now() < until) {
          await s.sleep(Math.min(until - Date.now(), heartbeatMs));
          await beatIfDue();
        }
      }
    } catch (e) {
      if (!s.aborted) await s.write(JSON.stringify({ errorMsg: `Watch stopped: ${(e as Error)?.message ?? String(e)}` }) + SEPARATOR).catch(() => {});
    } finally {
      revoked?.removeEventListener("abort", onRevoked);
      feed.close();
    }
  });
}

/** The tenants of the header: one, or a comma-separated list for the admin paths. */
export function tenantsOf(c: ServiceContext): string[] {
  return c
    .get("tenant")
    .split(",")
    .map((t) => t.trim())
    .filter((t) => t.length > 0);
}

function intervalMs(q: QueryParams): number {
  return (q.int("watchInterval", 0) ?? 0) * 1000;
}

export function watchAlertsHandler({ alerting, heartbeatMs }: AlertsHttpDeps, tenants: (c: ServiceContext) => string[]) {
  return async (c: ServiceContext, q: QueryParams) => {
    const criteria = alertCriteria(q);
    const interval = intervalMs(q);
    const thin = q.bool("thin") ?? false;
    const feed = await alerting.watchAlerts(tenants(c), criteria);
    return streamFeed(c, feed, renderAlert(thin), interval, heartbeatMs);
  };
}

export function watchEventsHandler({ alerting, heartbeatMs }: AlertsHttpDeps, tenants: (c: ServiceContext) => string[]) {
  return async (c: ServiceContext, q: QueryParams) => {
    const criteria = eventCriteria(q);
    const interval = intervalMs(q);
    const thin = q.bool("thin") ?? false;
    const feed = await alerting.watchEvents(tenants(c), criteria);
    return streamFeed(c, feed, renderEvent(thin), interval, heartbeatMs);
  };
}

export const WATCH_ALERT_PARAMS = [...ALERT_FILTERS, "thin", "watchInterval"];
export const WATCH_EVENT_PARAMS = [...EVENT_FILTERS, "thin", "watchInterval"];

export function watchRoutes(route: Route, deps: AlertsHttpDeps): void {
  route("get", "/watch", WATCH_ALERT_PARAMS, watchAlertsHandler(deps, (c) => [c.get("tenant")]));
  route("get", "/events/watch", WATCH_EVENT_PARAMS, watchEventsHandler(deps, (c) => [c.get("tenant")]));
}
