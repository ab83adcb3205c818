import type { Presence } from "../components/badges.tsx";
import type { SortDir } from "../components/sort-header.tsx";

/** One feed as GET /svc/fleet/feeds answers it (collector/fleet/summary.ts). */
export interface FeedSummary {
  feed: string;
  name?: string;
  presence?: { state: Presence; since: number };
  lastData?: number;
  agentVersion?: string;
  buffer?: { points: number; oldest?: number; at: number };
  drops?: { total: number; size: number; age: number; rejected: number; at: number };
  cpu?: { start: number; step: number; values: (number | null)[]; last?: number; lastAt?: number };
}

export type StatusFilter = "all" | "up" | "down" | "unknown";
export type FleetSortKey = "status" | "feed" | "since" | "lastData" | "version" | "buffer" | "oldest" | "drops" | "cpu";

/** Offline first when sorting by status ascending: those are what a fleet view is for. */
const STATUS_RANK: Record<Presence, number> = { down: 0, unknown: 1, up: 2 };

export const stateOf = (f: FeedSummary): Presence => f.presence?.state ?? "unknown";

/** Feeds whose id, name or agent version contain the text (case-insensitive) and that have the status. */
export function filterFeeds(feeds: readonly FeedSummary[], text: string, status: StatusFilter): FeedSummary[] {
  const needle = text.trim().toLowerCase();
  return feeds.filter((f) => {
    if (status !== "all" && stateOf(f) !== status) return false;
    if (!needle) return true;
    return f.feed.toLowerCase().includes(needle) || (f.name ?? "").toLowerCase().includes(needle) || (f.agentVersion ?? "").toLowerCase().includes(needle);
  });
}

type Key = string | number | undefined;

function keyOf(f: FeedSummary, key: FleetSortKey): Key {
  switch (key) {
    case "status":
      return STATUS_RANK[stateOf(f)];
    case "feed":
      return f.feed.toLowerCase();
    case "since":
      return f.presence?.since;
    case "lastData":
      return f.lastData;
    case "version":
      return f.agentVersion;
    case "buffer":
      return f.buffer?.points;
    case "oldest":
      // The oldest point first when ascending: the longest wait.
      return f.buffer?.oldest;
    case "drops":
      return f.drops?.total;
    case "cpu":
      return f.cpu?.last;
  }
}

const collator = new Intl.Collator("en", { numeric: true });

function compareKeys(a: Key, b: Key): number {
  if (typeof a === "number" && typeof b === "number") return a - b;
  return collator.compare(String(a), String(b));
}

/** Sorted copy; feeds without a value for the key go last either way, ties by feed id. */
export function sortFeeds(feeds: readonly FeedSummary[], sort: { key: FleetSortKey; dir: SortDir }): FeedSummary[] {
  const sign = sort.dir === "asc" ? 1 : -1;
  const keyed = feeds.map((f) => ({ f, k: keyOf(f, sort.key) }));
  keyed.sort((x, y) => {
    if (x.k === undefined || y.k === undefined) {
      if (x.k !== y.k) return x.k === undefined ? 1 : -1;
    } else {
      const c = compareKeys(x.k, y.k);
      if (c !== 0) return sign * c;
    }
    return collator.compare(x.f.feed, y.f.feed);
  });
  return keyed.map((x) => x.f);
}

export interface FleetTotals {
  feeds: number;
  up: number;
  down: number;
  unknown: number;
  buffered: number;
  drops: number;
}

export function fleetTotals(feeds: readonly FeedSummary[]): FleetTotals {
  const t: FleetTotals = { feeds: feeds.length, up: 0, down: 0, unknown: 0, buffered: 0, drops: 0 };
  for (const f of feeds) {
    t[stateOf(f)]++;
    t.buffered += f.buffer?.points ?? 0;
    t.drops += f.drops?.total ?? 0;
  }
  return t;
}
