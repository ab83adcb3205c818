import type { MetricWrite } from "../../src/metrics/model.ts";
import type { PointsBus } from "../events/points-bus.ts";
import type { MetricsStore } from "../store/metrics/types.ts";

export interface WriteDeps {
  store: MetricsStore;
  bus: PointsBus;
}

/**
 * The one way points enter the collector (HTTP and MQTT alike): commit to the store, then
 * tell the engines that follow the data. Resolves only after the commit.
 */
export async function writePoints(deps: WriteDeps, tenant: string, writes: MetricWrite[], origin: string): Promise<number> {
  const nonEmpty = writes.filter((w) => w.points.length > 0);
  if (nonEmpty.length === 0) return 0;
  await deps.store.write(tenant, nonEmpty);
  deps.bus.publish({ tenant, writes: nonEmpty, origin });
  let n = 0;
  for (const w of nonEmpty) n += w.points.length;
  return n;
}
