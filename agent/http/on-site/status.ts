import type { OnSiteStatus } from "../../../src/http/console/names.ts";
import { hostPort } from "../../../src/net/listen.ts";
import { parseBrokerUrl } from "../../../src/protocol/broker-url.ts";

/** Where the on-site status comes from: the agent's link, forwarder, buffer and counters. */
export interface StatusSources {
  tenant: string;
  feed: string;
  brokerUrl: string;
  version: string;
  connected: () => boolean;
  lastAckAt: () => number | undefined;
  backlog: () => { points: number; bytes: number; oldest?: number };
  history: () => { windowMs: number; points: number; bytes: number };
  /** Points dropped since the start (size, age, refused). */
  dropped: () => number;
  now?: () => number;
}

/**
 * The on-site view's status (GET /console/api/status): whether the agent reaches its broker and
 * since when it does not, when the collector last acknowledged data, and what waits in the
 * buffer. `linkUp` and `linkDown` follow the broker link; until it first comes up, the link is
 * down since the agent started.
 */
export function onSiteStatus(s: StatusSources): { status: () => OnSiteStatus; linkUp: () => void; linkDown: () => void } {
  const now = s.now ?? Date.now;
  let downSince: number | undefined = now();
  const b = parseBrokerUrl(s.brokerUrl);
  // Scheme, host and port only: nothing else of the URL is shown.
  const broker = `${b.tls ? "mqtts" : "mqtt"}://${hostPort(b.host, b.port)}`;
  return {
    status: () => {
      const connected = s.connected();
      return {
        tenant: s.tenant,
        feed: s.feed,
        now: now(),
        connected,
        downSince: connected ? undefined : downSince,
        lastAckAt: s.lastAckAt(),
        backlog: s.backlog(),
        history: s.history(),
        dropped: s.dropped(),
        broker,
        version: s.version,
      };
    },
    linkUp: () => {
      downSince = undefined;
    },
    linkDown: () => {
      downSince ??= now();
    },
  };
}
