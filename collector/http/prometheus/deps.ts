import type { PrometheusReadDeps } from "../../../src/http/prometheus/read-deps.ts";
import type { WriteDeps } from "../../metrics/write-points.ts";

export interface PrometheusDeps extends WriteDeps, PrometheusReadDeps {
  store: WriteDeps["store"];
}
