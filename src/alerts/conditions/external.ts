import type { ExternalCondition } from "../model.ts";

/**
 * External conditions are evaluated by an external alerter; whatever reaches the engine for
 * their dataId is such an evaluation, and every one counts as true.
 */
export function externalMatches(): boolean {
  return true;
}

export function externalDisplay(c: Pick<ExternalCondition, "dataId" | "alerterId" | "expression">): string {
  return `${c.dataId} external${c.alerterId ? ` [${c.alerterId}]` : ""}${c.expression ? ` ${c.expression}` : ""}`;
}
