/** The alerting engine shared by the collector and the agent. */
export * from "./model.ts";
export * from "./schemas.ts";
export * from "./ids.ts";
export * from "./groups.ts";
export * from "./lifecycle.ts";
export { conditionDisplay } from "./conditions/display.ts";
export { compileEventExpression, eventExpressionMatches, parseEventExpression } from "./event-expression.ts";
export { DampeningState, conditionSetResult } from "./dampening.ts";
export { NelsonState } from "./nelson.ts";
export { type Scheduler, systemScheduler, createManualClock, type ManualClock } from "./scheduler.ts";
export * from "../tags/query/index.ts";
export {
  createAlertsEngine,
  type AlertsEngine,
  type AlertsEngineOptions,
  type AlertsEngineStats,
  type EngineEffect,
} from "./engine/engine.ts";
export type { EngineData } from "./engine/evaluate.ts";
