import { ApiError } from "../http/errors.ts";

const INTEGER = /^[+-]?\d+$/;
const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

const invalid = (name: string, text: string) => new ApiError(400, `Invalid value for parameter ${name}: ${text}`);

/** An int32 query parameter (`buckets`, `limit`); absent → undefined; out of range or not an integer → 400. */
export function parseIntParam(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = INTEGER.test(text) ? Number(text) : Number.NaN;
  if (!(n >= INT32_MIN && n <= INT32_MAX)) throw invalid(name, text);
  return n;
}

/**
 * An int64 query parameter (`start`, `end`). Values beyond ±2^53 are rejected: they are not
 * meaningful millisecond timestamps and could not be handled exactly.
 */
export function parseLongParam(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = INTEGER.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(n)) throw invalid(name, text);
  return n;
}

/** A decimal query parameter (`threshold`): plain or exponent notation, finite. */
export function parseDoubleParam(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isFinite(n)) throw invalid(name, text);
  return n;
}

/**
 * A boolean query parameter (`stacked`, `distinct`, `fromEarliest`, `overwrite`): `true` or
 * `false`, case-insensitively. Upstream silently read any other text as false; a 400 tells the
 * client about the typo instead.
 */
export function parseBooleanParam(name: string, text: string | undefined): boolean | undefined {
  if (text === undefined) return undefined;
  const lower = text.toLowerCase();
  if (lower === "true") return true;
  if (lower === "false") return false;
  throw invalid(name, text);
}
