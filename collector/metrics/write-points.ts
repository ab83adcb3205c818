import type { MetricWrite } from "../../src/metrics/model.ts";
import { roundWrites } from "../../src/metrics/value-precision.ts";
import type { PointsBus } from "../events/points-bus.ts";
import type { MetricsStore } from "../store/metrics/types.ts";

export interface WriteDeps {
  store: MetricsStore;
  bus: PointsBus;
  /** --value-precision: significant decimal digits gauge and counter values are rounded to; absent: stored as sent. */
  valuePrecision?: number;
}

/**
 * The one way points enter the collector (HTTP and MQTT alike): round the values when
 * --value-precision asks so, commit to the store, then tell the engines that follow the data
 * (with the values as stored). Resolves only after the commit.
 */
export async function writePoints(deps: WriteDeps, tenant: string, writes: MetricWrite[], origin: string): Promise<number> {
  let nonEmpty = writes.filter((w) => w.points.length > 0);
  if (nonEmpty.length === 0) return 0;
  if (deps.valuePrecision !== undefined) nonEmpty = roundWrites(nonEmpty, deps.valuePrecision);
  await deps.store.write(tenant, nonEmpty);
  deps.bus.publish({ tenant, writes: nonEmpty, origin });
  let n = 0;
  for (const w of nonEmpty) n += w.points.length;
  return n;
}
