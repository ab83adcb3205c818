import type {
  Action,
  ActionDefinition,
  Alert,
  AlertStatus,
  Event,
  FullTrigger,
  Severity,
  TriggerMode,
} from "../../../src/alerts/model.ts";
import type { Lease } from "../../../src/partitions.ts";

/**
 * Criteria the store can answer with its indexes. Everything else (tag queries, lifecycle times
 * of past states, sorting, paging) is the domain's business, on the rows returned.
 */
export interface AlertRows {
  tenants: readonly string[];
  /** Creation time bounds, inclusive. */
  startTime?: number;
  endTime?: number;
  ids?: readonly string[];
  triggerIds?: readonly string[];
  statuses?: readonly AlertStatus[];
  severities?: readonly Severity[];
  startAckTime?: number;
  endAckTime?: number;
  startResolvedTime?: number;
  endResolvedTime?: number;
  /** Only alerts whose current lifecycle state is newer than this (watch streams). */
  statusTimeAfter?: number;
}

export interface EventRows {
  tenants: readonly string[];
  startTime?: number;
  endTime?: number;
  ids?: readonly string[];
  triggerIds?: readonly string[];
  categories?: readonly string[];
  /** Only events created after this (watch streams). */
  ctimeAfter?: number;
}

export interface ActionRows {
  tenants: readonly string[];
  startTime?: number;
  endTime?: number;
  plugins?: readonly string[];
  actionIds?: readonly string[];
  eventIds?: readonly string[];
  results?: readonly string[];
}

/** A history row: the action with the store's own key, which is never shown to clients. */
export interface StoredAction {
  key: string;
  action: Action;
}

/** Trigger writes that belong together (a group and its members) and land in one transaction. */
export interface TriggerChanges {
  put?: readonly FullTrigger[];
  remove?: readonly { tenantId: string; id: string }[];
}

/**
 * Writes that land together or not at all: alerts and events that fired or moved on, with the
 * WAITING history of the actions they call for. Announcing them (watchers, actions) follows the
 * commit, so a failed commit leaves nothing half done and can simply be tried again.
 */
export interface AlertingWrites {
  /** Ids already present are skipped. */
  insertAlerts?: readonly Alert[];
  updateAlerts?: readonly Alert[];
  /** Ids already present are skipped. */
  insertEvents?: readonly Event[];
  actions?: readonly StoredAction[];
  /** Trigger flags the engine changed (autoDisable, autoEnable, modes), with what fired them. */
  triggerStates?: readonly TriggerState[];
  /**
   * Collectors sharing a database: the lease of the tenants' partition the engine fired under.
   * Everything commits only if this collector still holds it at that generation; otherwise
   * nothing does and StaleLeaseError is thrown. A store of one collector (SQLite) has no leases.
   */
  lease?: Lease;
}

export interface TriggerState {
  tenantId: string;
  id: string;
  enabled?: boolean;
  mode?: TriggerMode;
}

/**
 * Persistence of the alerting service: trigger definitions, alerts, events, action definitions
 * and the action history. Every call is scoped by tenant. Async so that a networked backend
 * fits the same shape.
 */
export interface AlertsStore {
  /** Every trigger of every tenant (loaded into the engine at start). */
  allTriggers(): Promise<FullTrigger[]>;
  triggers(tenantId: string): Promise<FullTrigger[]>;
  trigger(tenantId: string, id: string): Promise<FullTrigger | undefined>;
  /** Members and orphans of a group. */
  members(tenantId: string, groupId: string): Promise<FullTrigger[]>;
  writeTriggers(changes: TriggerChanges): Promise<void>;
  setTriggerEnabled(tenantId: string, id: string, enabled: boolean): Promise<void>;
  setTriggerMode(tenantId: string, id: string, mode: TriggerMode): Promise<void>;
  /** Back to FIRING for every trigger (the spec's reload at start-up). */
  resetModes(): Promise<void>;

  /** Ids already present are skipped; returns the alerts inserted. */
  insertAlerts(alerts: readonly Alert[]): Promise<Alert[]>;
  updateAlerts(alerts: readonly Alert[]): Promise<void>;
  alert(tenantId: string, id: string): Promise<Alert | undefined>;
  findAlerts(rows: AlertRows): Promise<Alert[]>;
  deleteAlerts(tenantId: string, ids: readonly string[]): Promise<number>;

  insertEvents(events: readonly Event[]): Promise<Event[]>;
  updateEvents(events: readonly Event[]): Promise<void>;
  event(tenantId: string, id: string): Promise<Event | undefined>;
  findEvents(rows: EventRows): Promise<Event[]>;
  deleteEvents(tenantId: string, ids: readonly string[]): Promise<number>;

  actionDefinitions(tenantId: string): Promise<ActionDefinition[]>;
  actionDefinition(tenantId: string, plugin: string, actionId: string): Promise<ActionDefinition | undefined>;
  putActionDefinitions(defs: readonly ActionDefinition[]): Promise<void>;
  deleteActionDefinition(tenantId: string, plugin: string, actionId: string): Promise<boolean>;

  insertActions(actions: readonly StoredAction[]): Promise<void>;
  /** One transaction for all of `w`. */
  commit(w: AlertingWrites): Promise<void>;
  setActionResult(key: string, result: string): Promise<void>;
  findActions(rows: ActionRows): Promise<StoredAction[]>;
  deleteActions(keys: readonly string[]): Promise<number>;
  /** Actions still WAITING, of every tenant, oldest first (re-run after a restart). */
  waitingActions(): Promise<StoredAction[]>;

  close(): Promise<void>;
}
