import type { Database } from "bun:sqlite";
import { join } from "node:path";
import type { Action, ActionDefinition, Alert, Event, FullTrigger, TriggerMode } from "../../../src/alerts/model.ts";
import type { Logger } from "../../../src/log/logger.ts";
import { openDatabase } from "../../../src/sqlite/open.ts";
import { migrate } from "../../../src/sqlite/migrations.ts";
import { reportingFailures, type StorageHealth } from "../../../src/sqlite/storage-health.ts";
import { alertColumns, type BodyRow, chunks, parseBodies } from "./rows.ts";
import { ALERTS_DB } from "./schema.ts";
import type { ActionRows, AlertingWrites, AlertRows, AlertsStore, EventRows, StoredAction, TriggerChanges, TriggerState } from "./types.ts";
import { actionsWhere, alertsWhere, eventsWhere, type Where } from "./where.ts";

export interface SqliteAlertsStoreOptions {
  dataDir: string;
  synchronous?: "FULL" | "NORMAL";
  log: Logger;
  /** Told of failed writes (full disk...), and probes this database until it takes writes again. */
  health?: StorageHealth;
}

/** The alerting service's data in its own database file, alerts.db. */
export class SqliteAlertsStore implements AlertsStore {
  private readonly db: Database;
  private readonly log: Logger;
  private readonly health: StorageHealth | undefined;

  constructor(opts: SqliteAlertsStoreOptions) {
    this.db = openDatabase(join(opts.dataDir, "alerts.db"), { synchronous: opts.synchronous ?? "FULL" });
    this.log = opts.log;
    migrate(this.db, ALERTS_DB, (m) => this.log.info(`upgraded ${ALERTS_DB.name} to schema ${m.version}`, { step: m.description }));
    this.health = opts.health;
    this.health?.register("alerts", this.db);
  }

  /** Runs a write (one statement or one transaction); a failure is reported to the storage health. */
  private write<T>(fn: () => T): T {
    return reportingFailures(this.health, "alerts", fn);
  }

  /** Runs `fn` as one transaction, reporting a failure. */
  private tx<T>(fn: () => T): T {
    return this.write(() => this.db.transaction(fn)());
  }

  private parse<T>(rows: readonly BodyRow[], what: string): T[] {
    return parseBodies<T>(rows, what, this.log);
  }

  // ------------------------------------------------------------ triggers

  async allTriggers(): Promise<FullTrigger[]> {
    return this.parse(this.db.query<BodyRow, []>("SELECT body FROM triggers ORDER BY tenant, id").all(), "trigger");
  }

  async triggers(tenantId: string): Promise<FullTrigger[]> {
    return this.parse(this.db.query<BodyRow, [string]>("SELECT body FROM triggers WHERE tenant = ? ORDER BY id").all(tenantId), "trigger");
  }

  async trigger(tenantId: string, id: string): Promise<FullTrigger | undefined> {
    const row = this.db.query<BodyRow, [string, string]>("SELECT body FROM triggers WHERE tenant = ? AND id = ?").get(tenantId, id);
    return row ? this.parse<FullTrigger>([row], "trigger")[0] : undefined;
  }

  async members(tenantId: string, groupId: string): Promise<FullTrigger[]> {
    return this.parse(
      this.db.query<BodyRow, [string, string]>("SELECT body FROM triggers WHERE tenant = ? AND member_of = ? ORDER BY id").all(tenantId, groupId),
      "trigger",
    );
  }

  async writeTriggers(changes: TriggerChanges): Promise<void> {
    const put = this.db.query(
      `INSERT INTO triggers (tenant, id, type, member_of, enabled, mode, body) VALUES (?, ?, ?, ?, ?, 'FIRING', ?)
       ON CONFLICT (tenant, id) DO UPDATE SET type = excluded.type, member_of = excluded.member_of,
         enabled = excluded.enabled, mode = 'FIRING', body = excluded.body`,
    );
    const remove = this.db.query("DELETE FROM triggers WHERE tenant = ? AND id = ?");
    this.tx(() => {
      for (const r of changes.remove ?? []) remove.run(r.tenantId, r.id);
      for (const f of changes.put ?? []) {
        const t = f.trigger;
        put.run(t.tenantId, t.id, t.type, t.memberOf ?? null, t.enabled ? 1 : 0, JSON.stringify(f));
      }
    });
  }

  async setTriggerEnabled(tenantId: string, id: string, enabled: boolean): Promise<void> {
    this.tx(() => this.setTriggerState({ tenantId, id, enabled }));
  }

  async setTriggerMode(tenantId: string, id: string, mode: TriggerMode): Promise<void> {
    this.write(() => this.setTriggerState({ tenantId, id, mode }));
  }

  async resetModes(): Promise<void> {
    this.write(() => this.db.exec("UPDATE triggers SET mode = 'FIRING' WHERE mode <> 'FIRING'"));
  }

  // ------------------------------------------------------------ alerts

  /** Inserts an alert unless its id exists; true when inserted (inside the caller's transaction). */
  private insertAlert(a: Alert): boolean {
    const q = this.db.query(
      `INSERT INTO alerts (tenant, id, trigger_id, ctime, severity, status, status_time, ack_time, resolved_time, body)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (tenant, id) DO NOTHING`,
    );
    return q.run(a.tenantId, a.id, ...alertColumns(a)).changes === 1;
  }

  private updateAlert(a: Alert): void {
    this.db
      .query(
        `UPDATE alerts SET trigger_id = ?, ctime = ?, severity = ?, status = ?, status_time = ?, ack_time = ?, resolved_time = ?, body = ?
         WHERE tenant = ? AND id = ?`,
      )
      .run(...alertColumns(a), a.tenantId, a.id);
  }

  private insertEvent(e: Event): boolean {
    const q = this.db.query(
      `INSERT INTO events (tenant, id, trigger_id, ctime, category, body) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (tenant, id) DO NOTHING`,
    );
    return q.run(e.tenantId, e.id, e.trigger?.id ?? null, e.ctime, e.category, JSON.stringify(e)).changes === 1;
  }

  private insertAction({ key, action: a }: StoredAction): void {
    this.db
      .query(`INSERT INTO action_history (id, tenant, plugin, action_id, event_id, ctime, result, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
      .run(key, a.tenantId ?? "", a.actionPlugin, a.actionId, a.eventId, a.ctime, a.result, JSON.stringify(a));
  }

  async commit(w: AlertingWrites): Promise<void> {
    // Leases exist only among collectors sharing PostgreSQL: one here is a wiring mistake.
    if (w.lease) throw new Error("alerts.db has no leases to fence writes with");
    this.tx(() => {
      for (const a of w.insertAlerts ?? []) this.insertAlert(a);
      for (const a of w.updateAlerts ?? []) this.updateAlert(a);
      for (const e of w.insertEvents ?? []) this.insertEvent(e);
      for (const a of w.actions ?? []) this.insertAction(a);
      for (const t of w.triggerStates ?? []) this.setTriggerState(t);
    });
  }

  private setTriggerState(s: TriggerState): void {
    if (s.mode !== undefined) this.db.query("UPDATE triggers SET mode = ? WHERE tenant = ? AND id = ?").run(s.mode, s.tenantId, s.id);
    if (s.enabled === undefined) return;
    const row = this.db.query<BodyRow, [string, string]>("SELECT body FROM triggers WHERE tenant = ? AND id = ?").get(s.tenantId, s.id);
    const full = row && this.parse<FullTrigger>([row], "trigger")[0];
    if (!full) return;
    full.trigger.enabled = s.enabled;
    this.db.query("UPDATE triggers SET enabled = ?, body = ? WHERE tenant = ? AND id = ?").run(s.enabled ? 1 : 0, JSON.stringify(full), s.tenantId, s.id);
  }

  async insertAlerts(alerts: readonly Alert[]): Promise<Alert[]> {
    const inserted: Alert[] = [];
    this.tx(() => {
      for (const a of alerts) if (this.insertAlert(a)) inserted.push(a);
    });
    return inserted;
  }

  async updateAlerts(alerts: readonly Alert[]): Promise<void> {
    this.tx(() => {
      for (const a of alerts) this.updateAlert(a);
    });
  }

  async alert(tenantId: string, id: string): Promise<Alert | undefined> {
    const row = this.db.query<BodyRow, [string, string]>("SELECT body FROM alerts WHERE tenant = ? AND id = ?").get(tenantId, id);
    return row ? this.parse<Alert>([row], "alert")[0] : undefined;
  }

  async findAlerts(r: AlertRows): Promise<Alert[]> {
    const w = alertsWhere(r);
    return this.parse(this.db.query<BodyRow, typeof w.params>(`SELECT body FROM alerts${w} ORDER BY ctime, id`).all(...w.params), "alert");
  }

  async deleteAlerts(tenantId: string, ids: readonly string[]): Promise<number> {
    return this.deleteByIds("alerts", tenantId, ids);
  }

  private deleteByIds(table: "alerts" | "events", tenantId: string, ids: readonly string[]): number {
    let n = 0;
    this.tx(() => {
      for (const part of chunks(ids)) {
        n += this.db.query(`DELETE FROM ${table} WHERE tenant = ? AND id IN (${part.map(() => "?").join(", ")})`).run(tenantId, ...part).changes;
      }
    });
    return n;
  }

  // ------------------------------------------------------------ events

  async insertEvents(events: readonly Event[]): Promise<Event[]> {
    const inserted: Event[] = [];
    this.tx(() => {
      for (const e of events) if (this.insertEvent(e)) inserted.push(e);
    });
    return inserted;
  }

  async updateEvents(events: readonly Event[]): Promise<void> {
    const q = this.db.query("UPDATE events SET category = ?, body = ? WHERE tenant = ? AND id = ?");
    this.tx(() => {
      for (const e of events) q.run(e.category, JSON.stringify(e), e.tenantId, e.id);
    });
  }

  async event(tenantId: string, id: string): Promise<Event | undefined> {
    const row = this.db.query<BodyRow, [string, string]>("SELECT body FROM events WHERE tenant = ? AND id = ?").get(tenantId, id);
    return row ? this.parse<Event>([row], "event")[0] : undefined;
  }

  async findEvents(r: EventRows): Promise<Event[]> {
    const w = eventsWhere(r);
    return this.parse(this.db.query<BodyRow, typeof w.params>(`SELECT body FROM events${w} ORDER BY ctime, id`).all(...w.params), "event");
  }

  async deleteEvents(tenantId: string, ids: readonly string[]): Promise<number> {
    return this.deleteByIds("events", tenantId, ids);
  }

  // ------------------------------------------------------------ action definitions

  async actionDefinitions(tenantId: string): Promise<ActionDefinition[]> {
    return this.parse(
      this.db.query<BodyRow, [string]>("SELECT body FROM action_definitions WHERE tenant = ? ORDER BY plugin, action_id").all(tenantId),
      "action definition",
    );
  }

  async actionDefinition(tenantId: string, plugin: string, actionId: string): Promise<ActionDefinition | undefined> {
    const row = this.db
      .query<BodyRow, [string, string, string]>("SELECT body FROM action_definitions WHERE tenant = ? AND plugin = ? AND action_id = ?")
      .get(tenantId, plugin, actionId);
    return row ? this.parse<ActionDefinition>([row], "action definition")[0] : undefined;
  }

  async putActionDefinitions(defs: readonly ActionDefinition[]): Promise<void> {
    const q = this.db.query(
      `INSERT INTO action_definitions (tenant, plugin, action_id, global, body) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (tenant, plugin, action_id) DO UPDATE SET global = excluded.global, body = excluded.body`,
    );
    this.tx(() => {
      for (const d of defs) q.run(d.tenantId ?? "", d.actionPlugin, d.actionId, d.global ? 1 : 0, JSON.stringify(d));
    });
  }

  async deleteActionDefinition(tenantId: string, plugin: string, actionId: string): Promise<boolean> {
    return this.write(
      () => this.db.query("DELETE FROM action_definitions WHERE tenant = ? AND plugin = ? AND action_id = ?").run(tenantId, plugin, actionId).changes === 1,
    );
  }

  // ------------------------------------------------------------ action history

  async insertActions(actions: readonly StoredAction[]): Promise<void> {
    this.tx(() => {
      for (const a of actions) this.insertAction(a);
    });
  }

  async setActionResult(key: string, result: string): Promise<void> {
    const row = this.db.query<BodyRow, [string]>("SELECT body FROM action_history WHERE id = ?").get(key);
    if (!row) return;
    const a = this.parse<Action>([row], "action")[0];
    if (!a) return;
    a.result = result;
    this.write(() => this.db.query("UPDATE action_history SET result = ?, body = ? WHERE id = ?").run(result, JSON.stringify(a), key));
  }

  private storedActions(sql: string, params: Where["params"]): StoredAction[] {
    const rows = this.db.query<BodyRow & { id: string }, typeof params>(sql).all(...params);
    const out: StoredAction[] = [];
    for (const r of rows) {
      const a = this.parse<Action>([r], "action")[0];
      if (a) out.push({ key: r.id, action: a });
    }
    return out;
  }

  async findActions(r: ActionRows): Promise<StoredAction[]> {
    const w = actionsWhere(r);
    return this.storedActions(`SELECT id, body FROM action_history${w} ORDER BY ctime, id`, w.params);
  }

  async deleteActions(keys: readonly string[]): Promise<number> {
    let n = 0;
    this.tx(() => {
      for (const part of chunks(keys)) {
        n += this.db.query(`DELETE FROM action_history WHERE id IN (${part.map(() => "?").join(", ")})`).run(...part).changes;
      }
    });
    return n;
  }

  async waitingActions(): Promise<StoredAction[]> {
    return this.storedActions("SELECT id, body FROM action_history WHERE result = 'WAITING' ORDER BY ctime, id", []);
  }

  async close(): Promise<void> {
    this.health?.unregister("alerts");
    this.db.close();
  }
}
