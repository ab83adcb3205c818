import type { MetricWrite } from "../../src/metrics/model.ts";
import { columnsToWrites, type WriteColumns } from "../../src/metrics/write-columns.ts";
import { roundToSignificant, roundWrites } from "../../src/metrics/value-precision.ts";
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

/**
 * writePoints for a columnar body (the JSON worker's): the listeners get MetricWrite[] whose
 * points are made only if a listener reads them.
 */
export async function writeColumns(deps: WriteDeps, tenant: string, cols: WriteColumns, origin: string): Promise<number> {
  const n = cols.ts.length;
  if (n === 0) return 0;
  // As roundWrites does for point objects, in place: the columns are this request's own.
  if (deps.valuePrecision !== undefined) for (let i = 0; i < n; i++) cols.values[i] = roundToSignificant(cols.values[i]!, deps.valuePrecision);
  await deps.store.writeColumns(tenant, cols);
  let writes: MetricWrite[] | undefined;
  deps.bus.publish({
    tenant,
    origin,
    points: n,
    columns: cols,
    // Made only if a listener asks (most ingest has none that looks at every write).
    get writes() {
      return (writes ??= columnsToWrites(cols));
    },
  });
  return n;
}
