import type { LearnPoint } from "../../src/forecast/forecaster.ts";
import type { MetricsStore } from "../store/metrics/types.ts";

/** The part of the metrics store forecasting reads from. */
export type PointSource = Pick<MetricsStore, "readRaw">;

/** Metric types a forecaster learns from: the numeric ones whose values are measurements. */
export const LEARNED_TYPES = ["gauge", "counter"] as const;

/**
 * The newest `limit` stored points of the metric after `after` (exclusive), oldest first,
 * from the gauge and the counter of that id (a forecaster follows both, as it does live).
 */
export async function readHistory(source: PointSource, tenant: string, metricId: string, limit: number, after?: number): Promise<LearnPoint[]> {
  const out: LearnPoint[] = [];
  for (const type of LEARNED_TYPES) {
    const cols = await source.readRaw(tenant, type, metricId, {
      start: after === undefined ? 0 : after + 1,
      end: Number.MAX_SAFE_INTEGER,
      order: "desc",
      limit,
    });
    cols.ts.forEach((timestamp, i) => {
      const value = cols.values[i];
      if (typeof value === "number") out.push({ timestamp, value });
    });
  }
  return out.sort((a, b) => a.timestamp - b.timestamp).slice(-limit);
}
