import { ApiError } from "../http/errors.ts";

const DECIMAL = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/;

/** One requested percentile: the number (0 to 100) and the text the client wrote for it. */
export interface PercentileRequest {
  quantile: number;
  original: string;
}

/** A request for percentile `p` written as the number itself (tests, programmatic callers). */
export const percentileOf = (p: number): PercentileRequest => ({ quantile: p, original: String(p) });

/**
 * Parses `percentiles=50.0,90,99.9` into requests, in the given order. Trailing commas are
 * dropped, as upstream's split does; an empty entry elsewhere, a token that is not a decimal
 * number, or a value outside [0, 100] is a 400 (upstream failed later, with a 500).
 */
export function parsePercentiles(text: string): PercentileRequest[] {
  const tokens = text.split(",");
  while (tokens.length > 1 && tokens[tokens.length - 1] === "") tokens.pop();
  return tokens.map((token) => {
    const p = DECIMAL.test(token) ? Number(token) : Number.NaN;
    if (!(p >= 0 && p <= 100)) throw new ApiError(400, `Invalid percentiles: ${text}`);
    return { quantile: p, original: token.trim() };
  });
}
