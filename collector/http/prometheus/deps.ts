import type { PrometheusReadDeps } from "../../../src/http/prometheus/read-deps.ts";
import type { RemoteWriteColumns } from "../../metrics/foreign-writes.ts";
import type { WriteDeps } from "../../metrics/write-points.ts";

export interface PrometheusDeps extends WriteDeps, PrometheusReadDeps {
  store: WriteDeps["store"];
  /** Remote write's series cache and columns (made here when absent); the server warms it once the store is open. */
  remoteWrite?: RemoteWriteColumns;
}
