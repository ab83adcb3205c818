import { ApiError } from "../http/errors.ts";
import type { Order } from "./series.ts";

/** Parses `order`, case-insensitively: `asc` or `desc`; anything else is a 400. */
export function parseOrder(text: string): Order {
  const lower = text.toLowerCase();
  if (lower === "asc" || lower === "desc") return lower;
  throw new ApiError(400, `${text} is not a recognized order`);
}

/**
 * The order of a raw read. An explicit `order` wins. Otherwise ascending only when a positive
 * limit is given with a start but no end ("the first N points after start"); descending in every
 * other case, so that a bare limit returns the newest points.
 */
export function resolveOrder(
  order: string | undefined,
  limit: number | undefined,
  startGiven: boolean,
  endGiven: boolean,
): Order {
  if (order !== undefined) return parseOrder(order);
  return limit !== undefined && limit > 0 && startGiven && !endGiven ? "asc" : "desc";
}

/** Absent, zero or negative limits mean "no limit"; returns undefined for those. */
export function effectiveLimit(limit: number | undefined): number | undefined {
  return limit !== undefined && limit > 0 ? limit : undefined;
}
