import { ackAlert, addNote, resolveAlert } from "../../src/alerts/lifecycle.ts";
import { ALERT_STATUSES, type Alert, SEVERITIES, type StringMap } from "../../src/alerts/model.ts";
import { commitAndAnnounce } from "./announce.ts";
import type { AlertingContext } from "./context.ts";
import { type AlertCriteria, alertMatches } from "./criteria.ts";
import { NotFoundError } from "./errors.ts";
import { type Page, type Pager, paginate } from "./paging.ts";

/** Newest first when the client does not sort. */
const DEFAULT_ORDER = [
  { field: "ctime", ascending: false },
  { field: "id", ascending: false },
];

/** Stored alerts: queries and the lifecycle moves users make (ack, resolve, notes, tags, delete). */
export class AlertRecords {
  constructor(private readonly ctx: AlertingContext) {}

  async matching(tenants: readonly string[], c: AlertCriteria): Promise<Alert[]> {
    const rows = await this.ctx.store.findAlerts({ ...c, tenants });
    return rows.filter((a) => alertMatches(a, c));
  }

  async find(tenants: readonly string[], c: AlertCriteria, pager: Pager): Promise<Page<Alert>> {
    return paginate(await this.matching(tenants, c), pager, DEFAULT_ORDER, { severity: SEVERITIES, status: ALERT_STATUSES });
  }

  async get(tenantId: string, id: string): Promise<Alert> {
    const a = await this.ctx.store.alert(tenantId, id);
    if (!a) throw new NotFoundError(`alertId: ${id} not found`);
    return a;
  }

  /**
   * Applies `change` to the named alerts that exist and stores the changed ones; with `announce`
   * (lifecycle moves) the actions they call for are stored in the same transaction, then
   * watchers hear of them and the actions run.
   */
  private change(tenantId: string, ids: readonly string[], change: (a: Alert) => Alert, requireOne = false, announce = false): Promise<Alert[]> {
    return this.ctx.serial.run(async () => {
      const found = await this.ctx.store.findAlerts({ tenants: [tenantId], ids });
      if (requireOne && found.length === 0) throw new NotFoundError(`alertId: ${ids[0]} not found`);
      const changed = found.map((a) => [a, change(a)] as const).filter(([before, after]) => before !== after);
      const after = changed.map(([, a]) => a);
      if (announce) await commitAndAnnounce(this.ctx, { changedAlerts: after });
      else await this.ctx.store.updateAlerts(after);
      return after;
    });
  }

  /** OPEN alerts move to ACKNOWLEDGED; others stay as they are. */
  async ack(tenantId: string, ids: readonly string[], by: string, notes: string | undefined, requireOne = false): Promise<void> {
    const now = this.ctx.now();
    await this.change(tenantId, ids, (a) => ackAlert(a, by, now, notes), requireOne, true);
  }

  /**
   * Unresolved alerts move to RESOLVED. When a trigger has no unresolved alert left, the engine
   * hears of it (autoEnable, or back to FIRING from AUTORESOLVE).
   */
  async resolve(tenantId: string, ids: readonly string[], by: string, notes: string | undefined, requireOne = false): Promise<void> {
    const now = this.ctx.now();
    const resolved = await this.change(tenantId, ids, (a) => resolveAlert(a, by, now, notes), requireOne, true);
    await this.ctx.serial.run(async () => {
      const triggerIds = [...new Set(resolved.flatMap((a) => (a.trigger ? [a.trigger.id] : [])))];
      for (const triggerId of triggerIds) {
        const open = await this.ctx.store.findAlerts({ tenants: [tenantId], triggerIds: [triggerId], statuses: ["OPEN", "ACKNOWLEDGED"] });
        this.ctx.engine.alertsResolved(tenantId, triggerId, open.length === 0);
      }
    });
    // what the engine did in return (autoEnable) is stored before the caller answers
    await this.ctx.serial.idle();
  }

  async note(tenantId: string, id: string, user: string, text: string): Promise<void> {
    const now = this.ctx.now();
    await this.change(tenantId, [id], (a) => addNote(a, user, text, now), true);
  }

  async addTags(tenantId: string, ids: readonly string[], tags: StringMap): Promise<void> {
    await this.change(tenantId, ids, (a) => ({ ...a, tags: { ...a.tags, ...tags } }));
  }

  async removeTags(tenantId: string, ids: readonly string[], names: readonly string[]): Promise<void> {
    await this.change(tenantId, ids, (a) => {
      if (!a.tags || !names.some((n) => Object.hasOwn(a.tags!, n))) return a;
      const tags = { ...a.tags };
      for (const n of names) delete tags[n];
      return { ...a, tags };
    });
  }

  /** Deletes every matching alert of the tenant; with no criteria, all of them. */
  deleteMatching(tenantId: string, c: AlertCriteria): Promise<number> {
    return this.ctx.serial.run(async () => {
      const doomed = await this.matching([tenantId], c);
      return this.ctx.store.deleteAlerts(
        tenantId,
        doomed.map((a) => a.id),
      );
    });
  }
}
