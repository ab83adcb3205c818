import { CanonicalPath } from "../../src/inventory/canonical-path.ts";
import { AVAILABILITY_VALUES, type MetricType } from "../../src/metrics/model.ts";
import { type BucketAverages, bucketAverages } from "../../src/metrics/bucket-averages.ts";
import { distinct } from "../../src/metrics/distinct.ts";
import { withoutStaleMarkers } from "../../src/prometheus/staleness.ts";
import { presenceMetricId } from "../ingest/presence.ts";
import type { InventoryStore } from "../store/inventory/types.ts";
import { type FeedFleetFacts, fleetFacts } from "./facts.ts";
import type { FleetServices } from "./services.ts";
import type { MetricsStore, SeriesEntry } from "../store/metrics/types.ts";

/*
 * The fleet at a glance (GET /svc/fleet/feeds, docs/console.md "Fleet"): what the collector
 * already stores about each feed, read in one pass. Nothing here runs on the ingest path.
 */

/** The agent's own metrics the summary reads (agent/telemetry.ts, agent/agent.ts), after `<feed>:`. */
export const AGENT_METRICS = {
  bufferPoints: "outpost_agent_buffer_points",
  bufferOldestAge: "outpost_agent_buffer_oldest_age_seconds",
  droppedSize: "outpost_agent_points_dropped_size_total",
  droppedAge: "outpost_agent_points_dropped_age_total",
  droppedRejected: "outpost_agent_points_dropped_rejected_total",
  cpu: "cpu_usage_percent:total",
} as const;

const PRESENCE_SUFFIX = presenceMetricId("");
const READ_SUFFIXES = [PRESENCE_SUFFIX, ...Object.values(AGENT_METRICS).map((name) => `:${name}`)];

/** Sparkline values need no more: two decimals keep the answer for 1,000 feeds small. */
const round2 = (v: number) => Math.round(v * 100) / 100;

export interface FeedSummary extends FeedFleetFacts {
  feed: string;
  /** The feed's name in the inventory (an agent names it after its host). */
  name?: string;
  /** From the availability metric `<feed>:outpost_agent_up`: the state and when it began. */
  presence?: { state: "up" | "down" | "unknown"; since: number };
  /** Newest timestamp of any of the feed's metrics (presence aside). */
  lastData?: number;
  /** `agentVersion` of the feed in the inventory (the agent syncs it). */
  agentVersion?: string;
  /** The agent's buffer as it last reported it: points waiting for an ack and the oldest one's time. */
  buffer?: { points: number; oldest?: number; at: number };
  /** Points the agent dropped since it started (full buffer, age limit, refused batches). */
  drops?: { total: number; size: number; age: number; rejected: number; at: number };
  /** Mean CPU use (all cores, %) per bucket, and the latest sample; two decimals. */
  cpu?: BucketAverages & { last?: number; lastAt?: number };
}

export interface FleetQuery {
  now: number;
  /** The sparkline's range, ending now, and its number of buckets. */
  cpuRangeMs: number;
  cpuBuckets: number;
}

export interface FleetStores {
  metrics: MetricsStore;
  inventory: InventoryStore;
  /** Identities and remote configuration (docs/fleet.md): the feeds' identity, conflicts and configuration state. */
  fleet?: FleetServices;
}

/** Feeds named in the tenant: by a presence metric or as an inventory feed. */
interface FeedFacts {
  name?: string;
  agentVersion?: string;
}

async function inventoryFeeds(store: InventoryStore, tenant: string): Promise<Map<string, FeedFacts>> {
  const out = new Map<string, FeedFacts>();
  const children = await store.read((r) => r.children(tenant, [CanonicalPath.tenant(tenant)]));
  for (const e of children) {
    if (e.type !== "f") continue;
    const version = e.properties?.agentVersion;
    out.set(e.id, { name: e.name, agentVersion: typeof version === "string" ? version : undefined });
  }
  return out;
}

/**
 * The feed a metric id belongs to (`<feed>:…`): the longest known feed id before a colon, since
 * feed ids may hold colons too (`site:7:cpu…` is site:7's when both site and site:7 are feeds).
 */
function feedOf(id: string, feeds: ReadonlyMap<string, unknown>): string | undefined {
  for (let i = id.lastIndexOf(":"); i > 0; i = id.lastIndexOf(":", i - 1)) {
    const feed = id.slice(0, i);
    if (feeds.has(feed)) return feed;
  }
  return undefined;
}

/**
 * The newest point of a numeric series, when it has one. Read from its newest timestamp on
 * (known from the series index), so only the last chunk is touched however long the history.
 */
async function latest(store: MetricsStore, tenant: string, type: MetricType, id: string, entry: SeriesEntry | undefined) {
  if (entry?.maxTs === undefined) return undefined;
  const cols = await store.readRaw(tenant, type, id, { start: entry.maxTs, end: entry.maxTs + 1, order: "desc", limit: 1 });
  const v = cols.values[0];
  return typeof v === "number" ? { value: v, at: cols.ts[0]! } : undefined;
}

async function presenceOf(store: MetricsStore, tenant: string, feed: string, now: number): Promise<FeedSummary["presence"]> {
  const id = presenceMetricId(feed);
  // Presence is written on connects and disconnects only: the whole series is a few points.
  const cols = await store.readRaw(tenant, "availability", id, { start: 0, end: now + 1, order: "asc" });
  const runs = distinct({ ts: cols.ts, values: cols.values });
  const n = runs.ts.length;
  if (n === 0) return undefined;
  const v = runs.values[n - 1];
  const state = typeof v === "number" ? AVAILABILITY_VALUES[v] : v;
  return { state: state === "up" || state === "down" ? state : "unknown", since: runs.ts[n - 1]! };
}

/**
 * One summary per feed of the tenant, sorted by feed id. Reads from the series index in memory,
 * the inventory's feeds, and per feed: its presence series, the latest point of five of the
 * agent's own metrics, and its CPU use over the sparkline's range.
 */
export async function fleetSummary(stores: FleetStores, tenant: string, q: FleetQuery): Promise<FeedSummary[]> {
  const series = await stores.metrics.listSeries(tenant);
  const facts = await inventoryFeeds(stores.inventory, tenant);
  const feeds = new Map<string, FeedFacts>(facts);
  for (const s of series) {
    if (s.type === "availability" && s.id.endsWith(PRESENCE_SUFFIX) && s.id.length > PRESENCE_SUFFIX.length) {
      const feed = s.id.slice(0, -PRESENCE_SUFFIX.length);
      if (!feeds.has(feed)) feeds.set(feed, {});
    }
  }
  const fleet = stores.fleet && (await fleetFacts(stores.fleet, tenant, feeds.keys()));
  for (const feed of fleet?.keys() ?? []) if (!feeds.has(feed)) feeds.set(feed, {});
  if (feeds.size === 0) return [];

  const lastData = new Map<string, number>();
  // Only the series read below are indexed: a fleet has tens of thousands of others.
  const entries = new Map<string, SeriesEntry>();
  for (const s of series) {
    const feed = feedOf(s.id, feeds);
    if (feed === undefined) continue;
    if (READ_SUFFIXES.some((suffix) => s.id.endsWith(suffix))) entries.set(`${s.type}\u0000${s.id}`, s);
    if (s.maxTs !== undefined && s.type !== "availability" && s.maxTs > (lastData.get(feed) ?? -Infinity)) lastData.set(feed, s.maxTs);
  }
  const entry = (type: MetricType, id: string) => entries.get(`${type}\u0000${id}`);

  const m = stores.metrics;
  const cpuStart = q.now - q.cpuRangeMs;
  const step = Math.max(1, Math.ceil(q.cpuRangeMs / q.cpuBuckets));
  const out: FeedSummary[] = [];
  for (const feed of [...feeds.keys()].sort()) {
    const f = feeds.get(feed)!;
    const id = (name: string) => `${feed}:${name}`;
    const s: FeedSummary = { feed, name: f.name, agentVersion: f.agentVersion, lastData: lastData.get(feed), ...fleet?.get(feed) };
    if (entry("availability", presenceMetricId(feed))) s.presence = await presenceOf(m, tenant, feed, q.now);

    const points = await latest(m, tenant, "gauge", id(AGENT_METRICS.bufferPoints), entry("gauge", id(AGENT_METRICS.bufferPoints)));
    if (points) {
      const age = await latest(m, tenant, "gauge", id(AGENT_METRICS.bufferOldestAge), entry("gauge", id(AGENT_METRICS.bufferOldestAge)));
      const oldest = points.value > 0 && age && age.value > 0 ? Math.round(age.at - age.value * 1000) : undefined;
      s.buffer = { points: points.value, oldest, at: points.at };
    }

    const counter = (name: string) => latest(m, tenant, "counter", id(name), entry("counter", id(name)));
    const [size, age, rejected] = [await counter(AGENT_METRICS.droppedSize), await counter(AGENT_METRICS.droppedAge), await counter(AGENT_METRICS.droppedRejected)];
    if (size || age || rejected) {
      const v = (x: { value: number } | undefined) => x?.value ?? 0;
      const at = Math.max(size?.at ?? 0, age?.at ?? 0, rejected?.at ?? 0);
      s.drops = { total: v(size) + v(age) + v(rejected), size: v(size), age: v(age), rejected: v(rejected), at };
    }

    const cpuId = id(AGENT_METRICS.cpu);
    if (entry("gauge", cpuId)) {
      const read = await m.readSeries(tenant, "gauge", cpuId, cpuStart, q.now + 1);
      const cpu = read && withoutStaleMarkers(read);
      if (cpu && cpu.ts.length > 0) {
        const n = cpu.ts.length;
        const avg = bucketAverages(cpu.ts, cpu.values, cpuStart, step, q.cpuBuckets);
        s.cpu = { ...avg, values: avg.values.map((v) => (v === null ? null : round2(v))), last: round2(cpu.values[n - 1]!), lastAt: cpu.ts[n - 1] };
      }
    }
    out.push(s);
  }
  return out;
}
