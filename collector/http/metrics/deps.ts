import type { JsonOffload } from "../../metrics/json-offload.ts";
import type { WriteDeps } from "../../metrics/write-points.ts";

export interface MetricsDeps extends WriteDeps {
  version: string;
  defaultRetentionDays: number;
  now?: () => number;
  /** Parses large gauge and counter write bodies in a worker thread (absent: on the main thread). */
  jsonOffload?: JsonOffload;
}
