import type { ReleaseStore, RolloutRecord, RolloutTarget } from "../store/releases/types.ts";
import type { UpgradeReport } from "../../src/protocol/upgrade-messages.ts";

/** A feed's version and upgrade, for the console's fleet page (GET /svc/fleet/upgrades). */
export interface FeedUpgrade {
  feed: string;
  version?: string;
  arch?: string;
  tags?: Record<string, string>;
  /** The agent's own report of its latest upgrade. */
  upgrade?: UpgradeReport;
  /** The newest rollout that includes the feed: its id, version and state, and the feed's part in it. */
  rollout?: { id: string; version: string; state: RolloutRecord["state"]; target: Pick<RolloutTarget, "batch" | "state" | "reason"> };
  /** When the agent last reported, collector clock. */
  at: number;
}

/** Each feed's latest report beside the newest rollout naming it. */
export class FeedUpgrades {
  constructor(private readonly store: ReleaseStore) {}

  async feeds(tenant: string): Promise<FeedUpgrade[]> {
    const reports = await this.store.reports(tenant);
    const newest = new Map<string, { r: RolloutRecord; t: RolloutTarget }>();
    // Oldest first, so the newest rollout of a feed is the one kept.
    for (const r of await this.store.rollouts(tenant)) for (const t of r.targets) newest.set(t.feed, { r, t });
    return reports.map((x) => {
      const n = newest.get(x.feed);
      return {
        feed: x.feed,
        version: x.version,
        arch: x.arch,
        tags: x.tags,
        upgrade: x.upgrade,
        rollout: n && { id: n.r.id, version: n.r.version, state: n.r.state, target: { batch: n.t.batch, state: n.t.state, reason: n.t.reason } },
        at: x.at,
      };
    });
  }
}
