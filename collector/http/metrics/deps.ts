import type { WriteDeps } from "../../metrics/write-points.ts";

export interface MetricsDeps extends WriteDeps {
  version: string;
  defaultRetentionDays: number;
  now?: () => number;
}
