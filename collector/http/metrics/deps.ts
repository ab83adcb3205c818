import type { PointsBus } from "../../events/points-bus.ts";
import type { JsonOffload } from "../../metrics/json-offload.ts";
import type { MetricsStore } from "../../store/metrics/types.ts";

export interface MetricsDeps {
  store: MetricsStore;
  bus: PointsBus;
  version: string;
  defaultRetentionDays: number;
  now?: () => number;
  /** Parses large gauge and counter write bodies in a worker thread (absent: on the main thread). */
  jsonOffload?: JsonOffload;
}
