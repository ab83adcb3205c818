import type { MetricWrite } from "../../src/metrics/model.ts";
import type { Status } from "../../src/protocol/messages.ts";

/** The availability metric recording a feed's presence: up while its agent is connected. */
export function presenceMetricId(feed: string): string {
  return `${feed}:outpost_agent_up`;
}

/**
 * Turns status messages into availability points. A last will from an older session can
 * arrive after the newer session's "online" (a restarted agent takes over its client id);
 * such a stale "offline" is ignored.
 */
export class PresenceTracker {
  /** tenant NUL feed → session of the latest online status seen. */
  private readonly online = new Map<string, number>();

  /** The availability write for this status, or undefined when it is stale. */
  record(tenant: string, feed: string, s: Status, now: number): MetricWrite | undefined {
    const key = `${tenant}\u0000${feed}`;
    const current = this.online.get(key);
    if (s.state === "offline" && current !== undefined && s.session < current) return undefined;
    if (s.state === "online") this.online.set(key, Math.max(current ?? 0, s.session));
    return { type: "availability", id: presenceMetricId(feed), points: [{ timestamp: now, value: s.state === "online" ? "up" : "down" }] };
  }
}
