import type { PointsBus } from "../../events/points-bus.ts";
import type { MetricsStore } from "../../store/metrics/types.ts";

export interface PrometheusDeps {
  store: MetricsStore;
  bus: PointsBus;
  /** Outpost's version, reported by buildinfo. */
  version: string;
  now?: () => number;
}
