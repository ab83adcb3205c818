import type { MissingCondition } from "../model.ts";

/** True when nothing arrived for at least `interval` ms since `previousTime`. */
export function missingMatches(interval: number, previousTime: number, time: number): boolean {
  return time - previousTime >= interval;
}

export function missingDisplay(c: Pick<MissingCondition, "dataId" | "interval">): string {
  return `${c.dataId} missing for ${c.interval}ms`;
}
