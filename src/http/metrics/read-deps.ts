import type { MetricsReader } from "../../metrics/reader.ts";

/** What the read routes of the metrics interface need: the collector's metrics app and the agent's local API. */
export interface MetricsReadDeps {
  store: MetricsReader;
  /** Retention applied to `fromEarliest` reads of metrics without their own. */
  defaultRetentionDays: number;
  now?: () => number;
}
