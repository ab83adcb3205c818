import type { Context } from "hono";
import { RESOLUTION_HEADER } from "../../metrics/rollup/read-through.ts";
import { Resolutions } from "../../metrics/rollup/tier-stats.ts";

/** The response, with the resolutions its answer read named (docs/storage.md, "What each query reads"). */
export function withResolution(res: Response, seen: Resolutions | undefined): Response {
  if (seen) res.headers.set(RESOLUTION_HEADER, seen.header());
  return res;
}

/**
 * What a request's answer is to name; a request carrying `Outpost-Resolution: raw` is answered
 * from raw points alone (to compare with the tiers' answer; raw points answer only for the
 * time they are kept).
 */
export function resolutionsFor(c: Context): Resolutions {
  return new Resolutions(c.req.header(RESOLUTION_HEADER)?.trim().toLowerCase() === "raw");
}
