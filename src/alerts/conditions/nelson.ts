import type { NelsonCondition } from "../model.ts";

/** True when any violated rule is one of the active ones (both as bit sets). */
export function nelsonMatches(activeMask: number, violations: number): boolean {
  return (activeMask & violations) !== 0;
}

export function nelsonDisplay(c: Pick<NelsonCondition, "dataId" | "activeRules" | "sampleSize">): string {
  return `${c.dataId} violates ${c.activeRules.join("|")} (baseline ${c.sampleSize} samples)`;
}
