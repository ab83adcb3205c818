import type { StringMap } from "../model.ts";
import type { ConditionRt } from "./runtime.ts";

/**
 * One (tenant, source, dataId): the conditions of active triggers that read it, the latest
 * datum seen (compare and rate conditions need it), and scratch fields of the batch being
 * processed. Data for a key no active condition reads is dropped after one lookup.
 */
export class IndexEntry {
  /** Conditions evaluated on data (everything but EVENT). */
  readonly dataRefs: ConditionRt[] = [];
  /** Conditions evaluated on events (EVENT, EXTERNAL, MISSING). */
  readonly eventRefs: ConditionRt[] = [];

  // the newest datum by timestamp
  hasLatest = false;
  latestNum = Number.NaN;
  latestTs = 0;
  latestContext: StringMap | undefined = undefined;

  // the round in progress
  batchSeq = 0;
  /** The first item of the batch for this key, and all of them in round order when there are more. */
  first: unknown = undefined;
  more: unknown[] | null = null;
  /** The item of the current round. */
  cur: unknown = undefined;
  curNum = Number.NaN;
  /** The current datum is newer than every earlier one (rate conditions only use such data). */
  curNewest = false;
  prevHas = false;
  prevNum = Number.NaN;
  prevTs = 0;

  constructor(
    readonly tenantId: string,
    readonly source: string,
    readonly dataId: string,
  ) {}

  get empty(): boolean {
    return this.dataRefs.length === 0 && this.eventRefs.length === 0;
  }

  /** Makes a round's datum current and moves the latest value, keeping the previous for rate conditions. */
  advance(datum: { value: unknown; timestamp: number; context?: StringMap }, num: number): void {
    this.cur = datum;
    this.curNum = num;
    this.prevHas = this.hasLatest;
    this.prevNum = this.latestNum;
    this.prevTs = this.latestTs;
    const newest = !this.hasLatest || datum.timestamp > this.latestTs;
    this.curNewest = newest;
    if (newest) {
      this.hasLatest = true;
      this.latestNum = num;
      this.latestTs = datum.timestamp;
      this.latestContext = datum.context;
    }
  }

  /** The datum of round `r` (the first, or the r-th of several for this key). */
  itemOf(r: number): unknown {
    return this.more === null ? this.first : this.more[r];
  }
}

/** Entries by tenant, then source, then dataId: a datum costs three map lookups and no allocation. */
export class DataIndex {
  private readonly tenants = new Map<string, Map<string, Map<string, IndexEntry>>>();

  get(tenantId: string, source: string, dataId: string): IndexEntry | undefined {
    return this.tenants.get(tenantId)?.get(source)?.get(dataId);
  }

  ensure(tenantId: string, source: string, dataId: string): IndexEntry {
    let sources = this.tenants.get(tenantId);
    if (!sources) this.tenants.set(tenantId, (sources = new Map()));
    let ids = sources.get(source);
    if (!ids) sources.set(source, (ids = new Map()));
    let e = ids.get(dataId);
    if (!e) ids.set(dataId, (e = new IndexEntry(tenantId, source, dataId)));
    return e;
  }

  /** Forgets an entry nothing reads any more (and with it the latest value it kept). */
  release(e: IndexEntry): void {
    if (!e.empty) return;
    const sources = this.tenants.get(e.tenantId);
    const ids = sources?.get(e.source);
    if (!sources || !ids || ids.get(e.dataId) !== e) return;
    ids.delete(e.dataId);
    if (ids.size === 0) sources.delete(e.source);
    if (sources.size === 0) this.tenants.delete(e.tenantId);
  }

  size(): number {
    let n = 0;
    for (const s of this.tenants.values()) for (const ids of s.values()) n += ids.size;
    return n;
  }
}

function removeFrom(list: ConditionRt[], c: ConditionRt): void {
  const i = list.indexOf(c);
  if (i >= 0) list.splice(i, 1);
}

/** Adds an active trigger's conditions to the index. */
export function indexConditions(index: DataIndex, conditions: readonly ConditionRt[], source: string, tenantId: string): void {
  for (const c of conditions) {
    const d = c.def;
    const e1 = index.ensure(tenantId, source, d.dataId);
    c.entry1 = e1;
    if (d.type !== "EVENT") e1.dataRefs.push(c);
    if (d.type === "EVENT" || d.type === "EXTERNAL" || d.type === "MISSING") e1.eventRefs.push(c);
    if (d.type === "COMPARE") {
      const e2 = index.ensure(tenantId, source, d.data2Id);
      c.entry2 = e2;
      if (e2 !== e1) e2.dataRefs.push(c);
    }
  }
}

/** Removes conditions from the index. */
export function unindexConditions(index: DataIndex, conditions: readonly ConditionRt[]): void {
  for (const c of conditions) {
    for (const e of [c.entry1, c.entry2]) {
      if (!e) continue;
      removeFrom(e.dataRefs, c);
      removeFrom(e.eventRefs, c);
      index.release(e);
    }
    c.entry1 = undefined;
    c.entry2 = undefined;
  }
}
