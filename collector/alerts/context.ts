import type { AlertsEngine } from "../../src/alerts/engine/engine.ts";
import type { Logger } from "../../src/log/logger.ts";
import type { AlertsStore } from "../store/alerts/types.ts";
import type { PluginRegistry } from "./actions/registry.ts";
import type { ActionRunner } from "./actions/runner.ts";
import type { Serial } from "./serial.ts";
import type { WatchHub } from "./watch-hub.ts";

/**
 * Told which triggers of a tenant were created, changed or removed (agents re-read them);
 * `remote` when the change was made through another collector sharing the database.
 */
export type DefinitionsListener = (tenantId: string, triggerIds: readonly string[], remote?: boolean) => void;

/** What the parts of the alerting service share: one store, one engine, one write queue. */
export interface AlertingContext {
  store: AlertsStore;
  engine: AlertsEngine;
  plugins: PluginRegistry;
  runner: ActionRunner;
  hub: WatchHub;
  /** Every write to alerts, events, triggers and history goes through it, in order. */
  serial: Serial;
  log: Logger;
  now: () => number;
  newId: () => string;
  definitionListeners: Set<DefinitionsListener>;
}
