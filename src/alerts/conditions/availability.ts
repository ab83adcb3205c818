import type { AvailabilityOperator, AvailabilityValue } from "../model.ts";

/**
 * Reads a datum as availability. Accepts the alerting names (UP, DOWN, UNAVAILABLE) and the
 * metrics names (up, down, unknown), in any case; anything else is not an availability.
 */
export function parseAvailability(value: string | number): AvailabilityValue | undefined {
  if (typeof value !== "string") return undefined;
  switch (value.toUpperCase()) {
    case "UP":
      return "UP";
    case "DOWN":
      return "DOWN";
    case "UNAVAILABLE":
    case "UNKNOWN":
      return "UNAVAILABLE";
    default:
      return undefined;
  }
}

export function availabilityMatches(op: AvailabilityOperator, value: AvailabilityValue): boolean {
  switch (op) {
    case "UP":
      return value === "UP";
    case "DOWN":
      return value === "DOWN";
    case "NOT_UP":
      return value !== "UP";
  }
}
