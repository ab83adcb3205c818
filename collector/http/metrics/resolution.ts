import { RESOLUTION_HEADER } from "../../metrics/rollup-reads.ts";
import type { Resolutions } from "../../metrics/rollup-stats.ts";

/** The response, with the resolutions its answer read named (docs/storage.md, "What each query reads"). */
export function withResolution(res: Response, seen: Resolutions | undefined): Response {
  if (seen) res.headers.set(RESOLUTION_HEADER, seen.header());
  return res;
}
