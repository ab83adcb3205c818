import { dataDrivenMember, groupDataIdTokens } from "../../src/alerts/groups.ts";
import { SOURCE_NONE } from "../../src/alerts/model.ts";
import type { AlertingContext } from "./context.ts";
import { commitTriggers } from "./trigger-writes.ts";

/** What data-driven groups need to know of a datum. */
export interface SourcedData {
  tenantId: string;
  id: string;
  source?: string;
}

interface GroupEntry {
  groupId: string;
  /** Sources that already have a member. */
  sources: Set<string>;
}

const key = (tenantId: string, dataId: string) => `${tenantId}\u0000${dataId}`;

/**
 * Members of DATA_DRIVEN_GROUP triggers, created when data from a new source arrives for a
 * dataId their conditions use (Hawkular's data-driven groups): `{groupId}_{source}`, evaluating
 * that source's data. Which groups read which dataIds, and which sources have members, is kept
 * in memory and rebuilt after any trigger definition changes.
 */
export class DataDrivenMembers {
  private index: Map<string, GroupEntry[]> | undefined;

  constructor(private readonly ctx: AlertingContext) {
    ctx.definitionListeners.add(() => {
      this.index = undefined;
    });
  }

  /** Creates the members the data calls for; resolves when they are stored and loaded (before the data is evaluated). */
  async ensureMembers(data: readonly SourcedData[]): Promise<void> {
    const wanted: { tenantId: string; groupId: string; source: string }[] = [];
    for (const d of data) {
      if (!d.source || d.source === SOURCE_NONE) continue;
      const groups = (await this.groupsReading())?.get(key(d.tenantId, d.id));
      for (const g of groups ?? []) {
        if (g.sources.has(d.source)) continue;
        g.sources.add(d.source);
        wanted.push({ tenantId: d.tenantId, groupId: g.groupId, source: d.source });
      }
    }
    if (wanted.length > 0) await this.ctx.serial.run(() => this.create(wanted));
  }

  /** Inside the write queue: the group may have changed or gone, or the member appeared meanwhile. */
  private async create(wanted: readonly { tenantId: string; groupId: string; source: string }[]): Promise<void> {
    for (const w of wanted) {
      const group = await this.ctx.store.trigger(w.tenantId, w.groupId);
      if (group?.trigger.type !== "DATA_DRIVEN_GROUP") continue;
      const member = dataDrivenMember(group, w.source);
      if (await this.ctx.store.trigger(w.tenantId, member.trigger.id)) continue;
      await commitTriggers(this.ctx, { put: [member] });
      this.ctx.log.info("data-driven member created", { tenant: w.tenantId, group: w.groupId, source: w.source, member: member.trigger.id });
    }
  }

  private async groupsReading(): Promise<Map<string, GroupEntry[]> | undefined> {
    if (this.index) return this.index;
    const all = await this.ctx.store.allTriggers();
    const index = new Map<string, GroupEntry[]>();
    for (const g of all) {
      if (g.trigger.type !== "DATA_DRIVEN_GROUP") continue;
      const sources = new Set<string>();
      for (const m of all) {
        if (m.trigger.memberOf === g.trigger.id && m.trigger.tenantId === g.trigger.tenantId && m.trigger.source) sources.add(m.trigger.source);
      }
      const entry = { groupId: g.trigger.id, sources };
      for (const dataId of groupDataIdTokens(g.conditions)) {
        const k = key(g.trigger.tenantId, dataId);
        index.set(k, [...(index.get(k) ?? []), entry]);
      }
    }
    this.index = index;
    return index;
  }
}
