import type { FeedConfigView } from "./remote-config.ts";
import type { FleetServices } from "./services.ts";

/** What fleet management adds to a feed's summary (GET /svc/fleet/feeds; docs/fleet.md). */
export interface FeedFleetFacts {
  /** The agent identity holding the feed. */
  identity?: { instance: string; host?: string; since: number; seenAt: number; tags: Record<string, string> };
  /** Other identities that claimed it, refused. */
  conflicts?: { instance: string; host?: string; firstAt: number; lastAt: number; attempts: number }[];
  /** Its remote configuration: desired and applied revision, state, error. */
  config?: FeedConfigView;
}

/** Fleet facts of a tenant's feeds: those given and every feed that has an identity, a conflict or a report. */
export async function fleetFacts(fleet: FleetServices, tenant: string, feeds: Iterable<string>): Promise<Map<string, FeedFleetFacts>> {
  // One snapshot for the identities, conflicts and configuration: a move shows whole or not at all.
  const snapshot = await fleet.configs.snapshot(tenant);
  const { identities, conflicts } = snapshot;
  const out = new Map<string, FeedFleetFacts>();
  const of = (feed: string) => {
    let f = out.get(feed);
    if (!f) out.set(feed, (f = {}));
    return f;
  };
  for (const i of identities) of(i.feed).identity = { instance: i.instance, ...(i.host ? { host: i.host } : {}), since: i.since, seenAt: i.seenAt, tags: i.tags };
  for (const c of conflicts) (of(c.feed).conflicts ??= []).push({ instance: c.instance, ...(c.host ? { host: c.host } : {}), firstAt: c.firstAt, lastAt: c.lastAt, attempts: c.attempts });
  const views = await fleet.configs.views(tenant, [...feeds, ...out.keys()], snapshot);
  // A feed nobody configures remotely and whose agent reported nothing shows no configuration.
  for (const [feed, v] of views) if (v.state !== "UNSET" || v.reportedAt !== undefined) of(feed).config = v;
  return out;
}
