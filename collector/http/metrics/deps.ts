import type { JsonOffload } from "../../metrics/json-offload.ts";
import type { MetricsReadDeps } from "../../../src/http/metrics/read-deps.ts";
import type { WriteDeps } from "../../metrics/write-points.ts";

export interface MetricsDeps extends WriteDeps, MetricsReadDeps {
  store: WriteDeps["store"];
  version: string;
  /** Parses large gauge and counter write bodies in a worker thread (absent: on the main thread). */
  jsonOffload?: JsonOffload;
}
