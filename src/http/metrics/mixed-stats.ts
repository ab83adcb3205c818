import * as z from "zod";
import { ApiError } from "../errors.ts";
import { jsonBoolean, jsonInteger } from "../json-scalars.ts";
import type { MetricDefinition } from "../../metrics/model.ts";
import { readAvailabilityStats, readNumericStats } from "../../metrics/queries.ts";
import type { Resolutions } from "../../metrics/rollup/tier-stats.ts";
import { selectMetrics } from "../../metrics/select.ts";
import type { MetricsReadDeps } from "./read-deps.ts";
import { percentilesText, readRange, statsRead, timeField } from "./read-params.ts";

/** The kinds of stats `POST /metrics/stats/query` answers, keyed as in its answer. */
export const STATS_KINDS = ["gauge", "counter", "availability", "gauge_rate", "counter_rate"] as const;
type StatsKind = (typeof STATS_KINDS)[number];

export const mixedStatsQuerySchema = z.object({
  /** Ids per metric type: `{"gauge": [...], "counter": [...], "availability": [...]}`. */
  metrics: z.record(z.string(), z.array(z.string())).optional(),
  tags: z.string().optional(),
  /** Which kinds to answer; `gauge_rate`/`counter_rate` ask for rate stats. */
  types: z.array(z.string()).optional(),
  start: timeField,
  end: timeField,
  buckets: jsonInteger.optional(),
  bucketDuration: z.string().optional(),
  percentiles: z.union([z.string(), z.array(z.union([z.string(), z.number()]))]).optional(),
  /** Before 0.2x's `types`: also answer the rates of the gauges and counters. */
  rates: jsonBoolean.optional(),
});
export type MixedStatsQuery = z.output<typeof mixedStatsQuerySchema>;

/** The 400s upstream gives before reading anything (checked for every query of a batch first). */
export function checkMixedStatsQuery(q: MixedStatsQuery): void {
  const hasIds = q.metrics !== undefined && Object.values(q.metrics).some((ids) => ids.length > 0);
  if (!hasIds && (q.tags === undefined || q.tags.trim() === "")) throw new ApiError(400, "Either the metrics or the tags property must be set");
  if (q.buckets === undefined && q.bucketDuration === undefined) throw new ApiError(400, "Either the buckets or bucketDuration property must be set");
  for (const t of q.types ?? []) {
    if (!(STATS_KINDS as readonly string[]).includes(t)) throw new ApiError(400, `Invalid type: ${t}; expected any of ${STATS_KINDS.join(", ")}`);
  }
}

/**
 * Which kinds to compute. With ids per type, each type given is answered, and a rate kind in
 * `types` adds (or, without its plain type in `types`, replaces) the stats of that type's ids by
 * their rates. With tags, `types` lists the kinds, all three plain kinds by default.
 */
function kindsOf(q: MixedStatsQuery): StatsKind[] {
  const types = new Set(q.types ?? []);
  if (q.tags !== undefined && q.metrics === undefined) {
    const kinds = types.size > 0 ? STATS_KINDS.filter((k) => types.has(k)) : ["gauge", "counter", "availability"];
    if (q.rates) kinds.push("gauge_rate", "counter_rate");
    return [...new Set(kinds)] as StatsKind[];
  }
  const kinds: StatsKind[] = [];
  for (const base of ["gauge", "counter", "availability"] as const) {
    if (!q.metrics?.[base]?.length) continue;
    const rateKind = base === "availability" ? undefined : (`${base}_rate` as const);
    const rateAsked = rateKind !== undefined && (types.has(rateKind) || q.rates === true);
    if (!rateAsked || types.has(base) || q.rates === true) kinds.push(base);
    if (rateAsked) kinds.push(rateKind);
  }
  return kinds;
}

/** POST /metrics/stats/query: `{kind: {id: [buckets]}}`; every selected metric gets its buckets. */
export async function mixedStats(deps: MetricsReadDeps, tenant: string, q: MixedStatsQuery, seen?: Resolutions): Promise<Record<string, Record<string, unknown[]>>> {
  checkMixedStatsQuery(q);
  if (q.metrics && q.tags) throw new ApiError(400, "Cannot use both the metrics and tags properties");
  const byKind = new Map<StatsKind, MetricDefinition[]>();
  for (const kind of kindsOf(q)) {
    const type = kind === "gauge_rate" ? "gauge" : kind === "counter_rate" ? "counter" : kind;
    const ids = q.metrics?.[type];
    byKind.set(kind, await selectMetrics(deps.store, tenant, type, ids, ids ? undefined : q.tags));
  }
  const range = await readRange(deps, q, async () => []);
  const req = { ...statsRead(range!, { ...q, percentiles: percentilesText(q.percentiles) }, false), seen };
  const out: Record<string, Record<string, unknown[]>> = {};
  for (const [kind, defs] of byKind) {
    for (const d of defs) {
      const points =
        kind === "availability"
          ? await readAvailabilityStats(deps.store, tenant, d.id, req)
          : await readNumericStats(deps.store, tenant, d.type as "gauge" | "counter", d.id, req, kind.endsWith("_rate"));
      (out[kind] ??= {})[d.id] = points;
    }
  }
  return out;
}
