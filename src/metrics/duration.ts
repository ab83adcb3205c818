import { ApiError } from "../http/errors.ts";

/** Milliseconds per unit of the spec's `duration` format. */
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, mn: 60_000, h: 3_600_000, d: 86_400_000 };

const DURATION = /^(\d+)(ms|s|mn|h|d)$/;

/**
 * Parses a `duration` parameter such as `10mn` into milliseconds. Anything else, `1w` or `5m`
 * included, is a 400, as upstream's converter rejects it. Lengths whose millisecond value is not
 * a safe integer are rejected too: no timestamp arithmetic could use them exactly.
 */
export function parseDuration(text: string): number {
  const m = DURATION.exec(text);
  if (m === null) throw new ApiError(400, `Invalid duration ${text}`);
  const ms = Number(m[1]) * UNIT_MS[m[2]!]!;
  if (!Number.isSafeInteger(ms)) throw new ApiError(400, `Invalid duration ${text}`);
  return ms;
}
