import type { EventCondition } from "../model.ts";

export { compileEventExpression, eventExpressionMatches } from "../event-expression.ts";

export function eventDisplay(c: Pick<EventCondition, "dataId" | "expression">): string {
  return `${c.dataId} matches [${c.expression ?? ""}]`;
}
