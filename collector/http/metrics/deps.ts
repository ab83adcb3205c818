import type { PointsBus } from "../../events/points-bus.ts";
import type { MetricsStore } from "../../store/metrics/types.ts";

export interface MetricsDeps {
  store: MetricsStore;
  bus: PointsBus;
  version: string;
  defaultRetentionDays: number;
  now?: () => number;
}
