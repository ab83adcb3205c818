import { useState } from "preact/hooks";
import { useConsole } from "../context.ts";
import { usePolling } from "../hooks.ts";
import { href } from "../router.ts";
import { type FeedUpgrade, upgradeCell } from "./rollouts-model.ts";

/** How often the feeds' upgrades are read again (as the fleet). */
const UPGRADES_REFRESH_MS = 5000;

/** The fleet's views: its feeds, their remote configuration, and the rollouts of agent releases (docs/fleet.md). */
export function FleetTabs({ on }: { on: "feeds" | "config" | "rollouts" }) {
  return (
    <nav class="tabs" aria-label="Fleet views">
      <a href={href(["fleet"])} aria-current={on === "feeds" ? "page" : undefined}>
        Feeds
      </a>
      <a href={href(["fleet", "config"])} aria-current={on === "config" ? "page" : undefined}>
        Configuration
      </a>
      <a href={href(["fleet", "rollouts"])} aria-current={on === "rollouts" ? "page" : undefined}>
        Rollouts
      </a>
    </nav>
  );
}

/** Each feed's version and part in the newest rollout (GET /svc/fleet/upgrades), by feed; read again every few seconds. */
export function useFeedUpgrades(): Map<string, FeedUpgrade> {
  const { api, tenant } = useConsole();
  const [byFeed, setByFeed] = useState<Map<string, FeedUpgrade>>(new Map());
  usePolling(
    async (signal) => {
      const list = await api.list<FeedUpgrade>("svc/fleet/upgrades", undefined, signal);
      setByFeed(new Map(list.map((u) => [u.feed, u])));
    },
    UPGRADES_REFRESH_MS,
    [tenant],
  );
  return byFeed;
}

/** The fleet table's upgrade column: what the newest rollout did with the feed, linked to it. */
export function UpgradeCell({ u }: { u: FeedUpgrade | undefined }) {
  const cell = upgradeCell(u);
  if (!cell) return <span class="faint">—</span>;
  const badge = <span class={`badge ${cell.tone}`}>{cell.text}</span>;
  return (
    <span title={cell.title} data-upgrade={u?.feed}>
      {u?.rollout ? <a href={href(["fleet", "rollouts", u.rollout.id])}>{badge}</a> : badge}
    </span>
  );
}
