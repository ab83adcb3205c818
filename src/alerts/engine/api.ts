import type { Alert, ConditionEval, Event, FullTrigger, TriggerMode } from "../model.ts";
import type { Scheduler } from "../scheduler.ts";
import type { EngineData } from "./evaluate.ts";

/** What the engine tells its owner, who stores alerts and definitions. */
export type EngineEffect =
  | { kind: "alert"; alert: Alert }
  | { kind: "event"; event: Event }
  /** The engine moved a trigger to another mode (after firing with autoResolve, or when auto-resolved). */
  | { kind: "mode"; tenantId: string; triggerId: string; mode: TriggerMode; time: number }
  /** The engine disabled (autoDisable) or re-enabled (autoEnable) a trigger; persist the flag. */
  | { kind: "enablement"; tenantId: string; triggerId: string; enabled: boolean; cause: "autoDisable" | "autoEnable"; time: number }
  /** A trigger with autoResolveAlerts auto-resolved: resolve its unresolved alerts with these evaluations. */
  | {
      kind: "resolveAlerts";
      tenantId: string;
      triggerId: string;
      user: "AutoResolve";
      notes: string;
      resolvedEvalSets: ConditionEval[][];
      time: number;
    };

export interface AlertsEngineOptions {
  /** Milliseconds since the epoch; dampening times and fired ctimes come from it. */
  clock?: () => number;
  scheduler?: Scheduler;
  /** Data of one dataId closer than this to the previous kept one in a batch are dropped (default 1000 ms). */
  minReportingIntervalData?: number;
  /** The same for events (default 0 ms: only exact duplicates are dropped). */
  minReportingIntervalEvents?: number;
  /** The unique part of fired alert and event ids (default: random UUIDs). */
  idGenerator?: () => string;
  listener?: (effect: EngineEffect) => void;
  /** Told about listener failures and cut event chains. */
  onWarning?: (message: string) => void;
  /** Trigger-fired events feed further triggers at most this many levels deep (default 32). */
  maxChainDepth?: number;
}

export interface AlertsEngineStats {
  triggers: number;
  activeTriggers: number;
  indexedKeys: number;
  dataReceived: number;
  dataDropped: number;
  eventsReceived: number;
  evaluations: number;
  alerts: number;
  events: number;
  timeouts: number;
  chainsCut: number;
}

export interface AlertsEngine {
  /** Adds or replaces a trigger. A (re)loaded trigger starts in FIRING mode with fresh dampening. */
  loadTrigger(full: FullTrigger): void;
  removeTrigger(tenantId: string, triggerId: string): boolean;
  /** Enabling a disabled trigger loads it afresh; disabling stops its evaluation. */
  setEnabled(tenantId: string, triggerId: string, enabled: boolean): boolean;
  /** Back to FIRING mode with fresh dampening, as after a manual reload. */
  reloadTrigger(tenantId: string, triggerId: string): boolean;
  getTrigger(tenantId: string, triggerId: string): FullTrigger | undefined;
  triggerIds(tenantId: string): string[];
  getMode(tenantId: string, triggerId: string): TriggerMode | undefined;
  /** Whether an enabled trigger's condition reads this dataId (from this source), so callers can skip data nobody reads. */
  watches(tenantId: string, dataId: string, source?: string): boolean;
  /** Evaluates data, synchronously. */
  sendData(data: readonly EngineData[]): void;
  /** Evaluates events (API or external), synchronously. Events without dataId match nothing. */
  sendEvents(events: readonly Event[]): void;
  /**
   * Tells the engine a trigger's alerts were resolved by a user. When none is left unresolved,
   * an autoEnable trigger that was disabled is enabled again, and an autoResolve trigger in
   * AUTORESOLVE mode goes back to FIRING.
   */
  alertsResolved(tenantId: string, triggerId: string, allResolved?: boolean): void;
  stats(): AlertsEngineStats;
  /** Cancels every timer; later calls are ignored. */
  close(): void;
}
