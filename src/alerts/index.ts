/** The alerting engine shared by the collector and the agent. */

export * from "../tags/query/index.ts";
export * from "./complete.ts";
export { conditionDisplay } from "./conditions/display.ts";
export { conditionSetResult, DampeningState } from "./dampening.ts";
export {
  type AlertsEngine,
  type AlertsEngineOptions,
  type AlertsEngineStats,
  createAlertsEngine,
  type EngineEffect,
} from "./engine/engine.ts";
export type { EngineData } from "./engine/evaluate.ts";
export { compileEventExpression, eventExpressionMatches, parseEventExpression } from "./event-expression.ts";
export * from "./groups.ts";
export * from "./ids.ts";
export * from "./lifecycle.ts";
export * from "./model.ts";
export { NelsonState } from "./nelson.ts";
export { createManualClock, type ManualClock, type Scheduler, systemScheduler } from "./scheduler.ts";
export * from "./schemas.ts";
