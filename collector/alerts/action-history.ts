import type { Action } from "../../src/alerts/model.ts";
import type { ActionRows } from "../store/alerts/types.ts";
import type { AlertingContext } from "./context.ts";
import { type Page, type Pager, paginate } from "./paging.ts";

export type ActionCriteria = Omit<ActionRows, "tenants">;

const DEFAULT_ORDER = [
  { field: "ctime", ascending: false },
  { field: "eventId", ascending: true },
];

/** The record of actions run: WAITING when queued, then PROCESSED or FAILED. */
export class ActionHistory {
  constructor(private readonly ctx: AlertingContext) {}

  /** Thin: the alert or event is left out, only its id kept. */
  async find(tenantId: string, c: ActionCriteria, pager: Pager, thin: boolean): Promise<Page<Action>> {
    const rows = await this.ctx.store.findActions({ ...c, tenants: [tenantId] });
    const actions = rows.map(({ action }) => {
      if (!thin) return action;
      const { event: _event, ...rest } = action;
      return rest as Action;
    });
    return paginate(actions, pager, DEFAULT_ORDER);
  }

  deleteMatching(tenantId: string, c: ActionCriteria): Promise<number> {
    return this.ctx.serial.run(async () => {
      const rows = await this.ctx.store.findActions({ ...c, tenants: [tenantId] });
      return this.ctx.store.deleteActions(rows.map((r) => r.key));
    });
  }
}
