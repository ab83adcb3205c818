import type { SQL } from "bun";
import type { Action, ActionDefinition, Alert, Event, FullTrigger, TriggerMode } from "../../../src/alerts/model.ts";
import type { Logger } from "../../../src/log/logger.ts";
import type { Lease } from "../../../src/partitions.ts";
import { numbered } from "../../../src/postgres/connect.ts";
import { postgresProbe } from "../../../src/postgres/probe.ts";
import { reportingFailuresAsync, type StorageHealth } from "../../../src/sqlite/storage-health.ts";
import { alertColumns, type BodyRow, chunks, parseBodies } from "./rows.ts";
import type { ActionRows, AlertingWrites, AlertRows, AlertsStore, EventRows, StoredAction, TriggerChanges, TriggerState } from "./types.ts";
import { actionsWhere, alertsWhere, eventsWhere } from "./where.ts";

export interface PostgresAlertsStoreOptions {
  /** The collector's pool; the store does not close it. Its tables are migrated (ALERTS_PG) before. */
  sql: SQL;
  log: Logger;
  /** Told of failed writes (server down, disk full), and probes the database until it takes writes again. */
  health?: StorageHealth;
  /**
   * Collectors sharing the database: inside a commit's transaction, refuses (StaleLeaseError)
   * unless this collector still holds the lease (LeaseKeeper.fenceGeneration).
   */
  fence?: (tx: SQL, lease: Lease) => Promise<void>;
}

type Param = string | number | null;

const marks = (n: number) => Array.from({ length: n }, () => "?").join(", ");

/**
 * The alerting service's data in PostgreSQL: the same tables, statements and answers as
 * SqliteAlertsStore, so that several collectors can share them. Each call is one statement or
 * one transaction; whatever the service keeps in memory changes only after it resolves.
 */
export class PostgresAlertsStore implements AlertsStore {
  private readonly sql: SQL;
  private readonly log: Logger;
  private readonly health: StorageHealth | undefined;
  private readonly fence: PostgresAlertsStoreOptions["fence"];

  constructor(opts: PostgresAlertsStoreOptions) {
    this.sql = opts.sql;
    this.fence = opts.fence;
    this.log = opts.log;
    this.health = opts.health;
    this.health?.registerTarget("alerts", postgresProbe(this.sql, "alerts"));
  }

  private rows<R>(db: SQL, text: string, params: readonly Param[] = []): Promise<R[]> {
    return db.unsafe(numbered(text), params as Param[]) as Promise<R[]>;
  }

  /** Runs a statement that changes data; answers the rows it changed. */
  private async run(db: SQL, text: string, params: readonly Param[] = []): Promise<number> {
    return ((await db.unsafe(numbered(text), params as Param[])) as { count: number }).count;
  }

  /** A write outside a transaction; a failure is reported to the storage health. */
  private write<T>(fn: () => Promise<T>): Promise<T> {
    return reportingFailuresAsync(this.health, "alerts", fn);
  }

  /** Runs `fn` as one transaction, reporting a failure. */
  private tx<T>(fn: (t: SQL) => Promise<T>): Promise<T> {
    return this.write(() => this.sql.begin((t) => fn(t)) as Promise<T>);
  }

  private parse<T>(rows: readonly BodyRow[], what: string): T[] {
    return parseBodies<T>(rows, what, this.log);
  }

  private async bodies<T>(what: string, text: string, params: readonly Param[] = []): Promise<T[]> {
    return this.parse<T>(await this.rows<BodyRow>(this.sql, text, params), what);
  }

  // ------------------------------------------------------------ triggers

  allTriggers(): Promise<FullTrigger[]> {
    return this.bodies("trigger", "SELECT body FROM triggers ORDER BY tenant, id");
  }

  triggers(tenantId: string): Promise<FullTrigger[]> {
    return this.bodies("trigger", "SELECT body FROM triggers WHERE tenant = ? ORDER BY id", [tenantId]);
  }

  async trigger(tenantId: string, id: string): Promise<FullTrigger | undefined> {
    return (await this.bodies<FullTrigger>("trigger", "SELECT body FROM triggers WHERE tenant = ? AND id = ?", [tenantId, id]))[0];
  }

  members(tenantId: string, groupId: string): Promise<FullTrigger[]> {
    return this.bodies("trigger", "SELECT body FROM triggers WHERE tenant = ? AND member_of = ? ORDER BY id", [tenantId, groupId]);
  }

  async writeTriggers(changes: TriggerChanges): Promise<void> {
    await this.tx(async (t) => {
      for (const r of changes.remove ?? []) await this.run(t, "DELETE FROM triggers WHERE tenant = ? AND id = ?", [r.tenantId, r.id]);
      for (const f of changes.put ?? []) {
        const tr = f.trigger;
        await this.run(
          t,
          `INSERT INTO triggers (tenant, id, type, member_of, enabled, mode, body) VALUES (?, ?, ?, ?, ?, 'FIRING', ?)
           ON CONFLICT (tenant, id) DO UPDATE SET type = excluded.type, member_of = excluded.member_of,
             enabled = excluded.enabled, mode = 'FIRING', body = excluded.body`,
          [tr.tenantId, tr.id, tr.type, tr.memberOf ?? null, tr.enabled ? 1 : 0, JSON.stringify(f)],
        );
      }
    });
  }

  async setTriggerEnabled(tenantId: string, id: string, enabled: boolean): Promise<void> {
    await this.tx((t) => this.setTriggerState(t, { tenantId, id, enabled }));
  }

  async setTriggerMode(tenantId: string, id: string, mode: TriggerMode): Promise<void> {
    await this.write(() => this.setTriggerState(this.sql, { tenantId, id, mode }));
  }

  async resetModes(): Promise<void> {
    await this.write(() => this.run(this.sql, "UPDATE triggers SET mode = 'FIRING' WHERE mode <> 'FIRING'"));
  }

  // ------------------------------------------------------------ alerts and events, inside a transaction

  private async insertAlert(t: SQL, a: Alert): Promise<boolean> {
    const n = await this.run(
      t,
      `INSERT INTO alerts (tenant, id, trigger_id, ctime, severity, status, status_time, ack_time, resolved_time, body)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (tenant, id) DO NOTHING`,
      [a.tenantId, a.id, ...alertColumns(a)],
    );
    return n === 1;
  }

  private async updateAlert(t: SQL, a: Alert): Promise<void> {
    await this.run(
      t,
      `UPDATE alerts SET trigger_id = ?, ctime = ?, severity = ?, status = ?, status_time = ?, ack_time = ?, resolved_time = ?, body = ?
       WHERE tenant = ? AND id = ?`,
      [...alertColumns(a), a.tenantId, a.id],
    );
  }

  private async insertEvent(t: SQL, e: Event): Promise<boolean> {
    const n = await this.run(
      t,
      `INSERT INTO events (tenant, id, trigger_id, ctime, category, body) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (tenant, id) DO NOTHING`,
      [e.tenantId, e.id, e.trigger?.id ?? null, e.ctime, e.category, JSON.stringify(e)],
    );
    return n === 1;
  }

  private async insertAction(t: SQL, { key, action: a }: StoredAction): Promise<void> {
    await this.run(t, "INSERT INTO action_history (id, tenant, plugin, action_id, event_id, ctime, result, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", [
      key,
      a.tenantId ?? "",
      a.actionPlugin,
      a.actionId,
      a.eventId,
      a.ctime,
      a.result,
      JSON.stringify(a),
    ]);
  }

  async commit(w: AlertingWrites): Promise<void> {
    await this.tx(async (t) => {
      if (w.lease) {
        if (!this.fence) throw new Error("writes fenced by a lease, but this store was given no fence");
        // First: the row lock it takes makes a takeover wait until these writes are committed.
        await this.fence(t, w.lease);
      }
      for (const a of w.insertAlerts ?? []) await this.insertAlert(t, a);
      for (const a of w.updateAlerts ?? []) await this.updateAlert(t, a);
      for (const e of w.insertEvents ?? []) await this.insertEvent(t, e);
      for (const a of w.actions ?? []) await this.insertAction(t, a);
      for (const s of w.triggerStates ?? []) await this.setTriggerState(t, s);
    });
  }

  private async setTriggerState(t: SQL, s: TriggerState): Promise<void> {
    if (s.mode !== undefined) await this.run(t, "UPDATE triggers SET mode = ? WHERE tenant = ? AND id = ?", [s.mode, s.tenantId, s.id]);
    if (s.enabled === undefined) return;
    const rows = await this.rows<BodyRow>(t, "SELECT body FROM triggers WHERE tenant = ? AND id = ? FOR UPDATE", [s.tenantId, s.id]);
    const full = this.parse<FullTrigger>(rows, "trigger")[0];
    if (!full) return;
    full.trigger.enabled = s.enabled;
    await this.run(t, "UPDATE triggers SET enabled = ?, body = ? WHERE tenant = ? AND id = ?", [s.enabled ? 1 : 0, JSON.stringify(full), s.tenantId, s.id]);
  }

  insertAlerts(alerts: readonly Alert[]): Promise<Alert[]> {
    return this.tx(async (t) => {
      const inserted: Alert[] = [];
      for (const a of alerts) if (await this.insertAlert(t, a)) inserted.push(a);
      return inserted;
    });
  }

  async updateAlerts(alerts: readonly Alert[]): Promise<void> {
    await this.tx(async (t) => {
      for (const a of alerts) await this.updateAlert(t, a);
    });
  }

  async alert(tenantId: string, id: string): Promise<Alert | undefined> {
    return (await this.bodies<Alert>("alert", "SELECT body FROM alerts WHERE tenant = ? AND id = ?", [tenantId, id]))[0];
  }

  async findAlerts(r: AlertRows): Promise<Alert[]> {
    const w = alertsWhere(r, "$");
    return this.parse(await this.sql.unsafe(`SELECT body FROM alerts${w} ORDER BY ctime, id`, w.params as Param[]), "alert");
  }

  deleteAlerts(tenantId: string, ids: readonly string[]): Promise<number> {
    return this.deleteByIds("alerts", tenantId, ids);
  }

  private deleteByIds(table: "alerts" | "events", tenantId: string, ids: readonly string[]): Promise<number> {
    return this.tx(async (t) => {
      let n = 0;
      for (const part of chunks(ids)) n += await this.run(t, `DELETE FROM ${table} WHERE tenant = ? AND id IN (${marks(part.length)})`, [tenantId, ...part]);
      return n;
    });
  }

  // ------------------------------------------------------------ events

  insertEvents(events: readonly Event[]): Promise<Event[]> {
    return this.tx(async (t) => {
      const inserted: Event[] = [];
      for (const e of events) if (await this.insertEvent(t, e)) inserted.push(e);
      return inserted;
    });
  }

  async updateEvents(events: readonly Event[]): Promise<void> {
    await this.tx(async (t) => {
      for (const e of events) await this.run(t, "UPDATE events SET category = ?, body = ? WHERE tenant = ? AND id = ?", [e.category, JSON.stringify(e), e.tenantId, e.id]);
    });
  }

  async event(tenantId: string, id: string): Promise<Event | undefined> {
    return (await this.bodies<Event>("event", "SELECT body FROM events WHERE tenant = ? AND id = ?", [tenantId, id]))[0];
  }

  async findEvents(r: EventRows): Promise<Event[]> {
    const w = eventsWhere(r, "$");
    return this.parse(await this.sql.unsafe(`SELECT body FROM events${w} ORDER BY ctime, id`, w.params as Param[]), "event");
  }

  deleteEvents(tenantId: string, ids: readonly string[]): Promise<number> {
    return this.deleteByIds("events", tenantId, ids);
  }

  // ------------------------------------------------------------ action definitions

  actionDefinitions(tenantId: string): Promise<ActionDefinition[]> {
    return this.bodies("action definition", "SELECT body FROM action_definitions WHERE tenant = ? ORDER BY plugin, action_id", [tenantId]);
  }

  async actionDefinition(tenantId: string, plugin: string, actionId: string): Promise<ActionDefinition | undefined> {
    const sql = "SELECT body FROM action_definitions WHERE tenant = ? AND plugin = ? AND action_id = ?";
    return (await this.bodies<ActionDefinition>("action definition", sql, [tenantId, plugin, actionId]))[0];
  }

  async putActionDefinitions(defs: readonly ActionDefinition[]): Promise<void> {
    await this.tx(async (t) => {
      for (const d of defs) {
        await this.run(
          t,
          `INSERT INTO action_definitions (tenant, plugin, action_id, global, body) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (tenant, plugin, action_id) DO UPDATE SET global = excluded.global, body = excluded.body`,
          [d.tenantId ?? "", d.actionPlugin, d.actionId, d.global ? 1 : 0, JSON.stringify(d)],
        );
      }
    });
  }

  async deleteActionDefinition(tenantId: string, plugin: string, actionId: string): Promise<boolean> {
    const sql = "DELETE FROM action_definitions WHERE tenant = ? AND plugin = ? AND action_id = ?";
    return (await this.write(() => this.run(this.sql, sql, [tenantId, plugin, actionId]))) === 1;
  }

  // ------------------------------------------------------------ action history

  async insertActions(actions: readonly StoredAction[]): Promise<void> {
    await this.tx(async (t) => {
      for (const a of actions) await this.insertAction(t, a);
    });
  }

  async setActionResult(key: string, result: string): Promise<void> {
    const rows = await this.rows<BodyRow>(this.sql, "SELECT body FROM action_history WHERE id = ?", [key]);
    const a = this.parse<Action>(rows, "action")[0];
    if (!a) return;
    a.result = result;
    await this.write(() => this.run(this.sql, "UPDATE action_history SET result = ?, body = ? WHERE id = ?", [result, JSON.stringify(a), key]));
  }

  private async storedActions(text: string, params: readonly Param[]): Promise<StoredAction[]> {
    const rows = (await this.sql.unsafe(text, params as Param[])) as (BodyRow & { id: string })[];
    const out: StoredAction[] = [];
    for (const r of rows) {
      const a = this.parse<Action>([r], "action")[0];
      if (a) out.push({ key: r.id, action: a });
    }
    return out;
  }

  findActions(r: ActionRows): Promise<StoredAction[]> {
    const w = actionsWhere(r, "$");
    return this.storedActions(`SELECT id, body FROM action_history${w} ORDER BY ctime, id`, w.params as Param[]);
  }

  deleteActions(keys: readonly string[]): Promise<number> {
    return this.tx(async (t) => {
      let n = 0;
      for (const part of chunks(keys)) n += await this.run(t, `DELETE FROM action_history WHERE id IN (${marks(part.length)})`, part);
      return n;
    });
  }

  waitingActions(): Promise<StoredAction[]> {
    return this.storedActions("SELECT id, body FROM action_history WHERE result = 'WAITING' ORDER BY ctime, id", []);
  }

  async close(): Promise<void> {
    this.health?.unregister("alerts");
  }
}
