import type { ConfigStateName, FeedConfigView } from "../../../../../src/http/fleet/answers.ts";
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
  /** The agent identity holding the feed (docs/fleet.md). */
  identity?: { instance: string; host?: string; since: number; seenAt: number; tags: Record<string, string> };
  /** Other identities that claimed the feed and were refused. */
  conflicts?: IdentityConflict[];
  /** Its remote configuration: the revision it should run, the one it runs, and the state. */
  config?: FeedConfig;
}

export interface IdentityConflict {
  instance: string;
  host?: string;
  firstAt: number;
  lastAt: number;
  attempts: number;
}

export type { ConfigStateName };
/** A feed's remote configuration as GET /svc/fleet/feeds shows it. */
export type FeedConfig = FeedConfigView;

/** The first 8 hex digits of an instance id: enough to tell a fleet's agents apart on screen. */
export const shortId = (instance: string) => instance.slice(0, 8);

/** The class that colours a configuration cell's tone. */
export const toneClass = (tone: ReturnType<typeof configCell>["tone"]) => ({ "": "", ok: "ok-text", warn: "warn", bad: "bad", muted: "muted" })[tone];

/** A feed's configuration cell: text, tone, and what the tooltip says. */
export function configCell(c: FeedConfig | undefined): { text: string; tone: "" | "ok" | "warn" | "bad" | "muted"; title?: string } {
  if (!c || c.state === "UNSET") return { text: "local", tone: "muted", title: "No remote configuration: the agent's own file alone" };
  const kept = c.kept?.length ? `; kept local (pinned): ${c.kept.join(", ")}` : "";
  if (c.state === "APPLIED") return { text: `rev ${c.desired}`, tone: "ok", title: `Runs revision ${c.desired}${kept}` };
  if (c.state === "FAILED") return { text: `rev ${c.desired} failed`, tone: "bad", title: `Refused revision ${c.desired}, runs ${c.applied || "its local configuration"}: ${c.error ?? "no reason given"}` };
  return { text: `rev ${c.desired} pending`, tone: "warn", title: `Sent revision ${c.desired}; runs ${c.applied || "its local configuration"} until it reports` };
}

export type StatusFilter = "all" | "up" | "down" | "unknown";
export type FleetSortKey = "status" | "feed" | "since" | "lastData" | "version" | "buffer" | "oldest" | "drops" | "cpu" | "config";

/** Offline first when sorting by status ascending: those are what a fleet view is for. */
const STATUS_RANK: Record<Presence, number> = { down: 0, unknown: 1, up: 2 };

export const stateOf = (f: FeedSummary): Presence => f.presence?.state ?? "unknown";

/** What the filter text is matched against: id, host name, version, identity, its host and tags (`role=edge`). */
function searchText(f: FeedSummary): string {
  const tags = Object.entries(f.identity?.tags ?? {}).map(([k, v]) => `${k}=${v}`);
  return [f.feed, f.name ?? "", f.agentVersion ?? "", f.identity?.instance ?? "", f.identity?.host ?? "", ...tags].join("\n").toLowerCase();
}

/** Feeds whose id, name, agent version, identity or tags contain the text (case-insensitive) and that have the status. */
export function filterFeeds(feeds: readonly FeedSummary[], text: string, status: StatusFilter): FeedSummary[] {
  const needle = text.trim().toLowerCase();
  return feeds.filter((f) => {
    if (status !== "all" && stateOf(f) !== status) return false;
    if (!needle) return true;
    return searchText(f).includes(needle);
  });
}

/** Failed first, then pending, applied, local: what needs a look comes first. */
const CONFIG_RANK: Record<ConfigStateName, number> = { FAILED: 0, APPLYING: 1, APPLIED: 2, UNSET: 3 };

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
    case "config":
      return f.config ? CONFIG_RANK[f.config.state] : undefined;
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
  /** Identities refused a held feed (cloned devices). */
  conflicts: number;
  /** Feeds whose agent refused the configuration it should run. */
  configFailed: number;
}

export function fleetTotals(feeds: readonly FeedSummary[]): FleetTotals {
  const t: FleetTotals = { feeds: feeds.length, up: 0, down: 0, unknown: 0, buffered: 0, drops: 0, conflicts: 0, configFailed: 0 };
  for (const f of feeds) {
    t[stateOf(f)]++;
    t.buffered += f.buffer?.points ?? 0;
    t.drops += f.drops?.total ?? 0;
    t.conflicts += f.conflicts?.length ?? 0;
    if (f.config?.state === "FAILED") t.configFailed++;
  }
  return t;
}
