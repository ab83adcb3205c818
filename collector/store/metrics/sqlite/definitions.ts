import type { ByIdTable } from "../../../../src/codec/by-id-table.ts";
import type { MetricDefinition, MetricType, Tags, Tenant } from "../../../../src/metrics/model.ts";
import type { CreateResult, MetricFilter, SeriesEntry } from "../types.ts";
import { key, kindKey, type SeriesMeta, type StoreState } from "./state.ts";

/** Tenants and metric definitions of the SQLite metrics store: stored first, memory follows the commit. */

/** Loops, not key arrays and a callback: a restarted collector compares every series' tags once. */
function sameTags(a: Tags | undefined, b: Tags): boolean {
  let n = 0;
  if (a) {
    for (const k in a) {
      if (a[k] !== b[k] || !Object.hasOwn(b, k)) return false;
      n++;
    }
  }
  for (const _ in b) n--;
  return n === 0;
}

// ---- tenants ---------------------------------------------------------------------------

export function createTenant(s: StoreState, t: Tenant, overwrite: boolean): CreateResult {
  const exists = s.tenants.has(t.id);
  if (exists && !overwrite) return "exists";
  const retentions = t.retentions && Object.keys(t.retentions).length ? t.retentions : undefined;
  s.writing(() => s.st.upsertTenant.run(t.id, retentions ? JSON.stringify(retentions) : null, s.now()));
  s.tenants.set(t.id, { id: t.id, retentions });
  return exists ? "overwritten" : "created";
}

export function listTenants(s: StoreState): Tenant[] {
  return [...s.tenants.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

export function deleteTenant(s: StoreState, id: string): void {
  const metas = [...(s.byTenant.get(id) ?? [])];
  s.writing(() =>
    s.db.transaction(() => {
      for (const m of metas) deleteSeriesRows(s, m);
      s.db.prepare("DELETE FROM tenants WHERE id = ?").run(id);
    })(),
  );
  for (const m of metas) forget(s, m);
  s.byTenant.delete(id);
  s.tenants.delete(id);
}

// ---- definitions -----------------------------------------------------------------------

/** Creates a series row (and its tenant's, if new) in one transaction; registered in memory once committed. */
function createSeries(s: StoreState, tenant: string, type: MetricType, id: string, tags: Tags | undefined, retention: number | undefined): SeriesMeta {
  let newTenant = false;
  const meta = s.writing(() =>
    s.db.transaction(() => {
      newTenant = s.insertTenantRow(tenant);
      return s.insertSeriesRow(tenant, type, id, tags, retention);
    })(),
  );
  if (newTenant) s.tenants.set(tenant, { id: tenant });
  s.register(meta);
  return meta;
}

/** Stores new definition fields, then (once stored) takes them into memory. */
function updateDefinition(s: StoreState, m: SeriesMeta, tags: Tags | undefined, retention: number | undefined): void {
  s.writing(() => s.st.updateSeriesDef.run(tags ? JSON.stringify(tags) : null, retention ?? null, m.sid));
  m.tags = tags;
  s.setRetention(m.sid, retention);
  s.definitionsVersion++;
  s.seriesVersion++;
}

/** min/max timestamps are those of the points stored (retention removes whole chunks). */
export function definition(s: StoreState, m: SeriesMeta): MetricDefinition {
  const def: MetricDefinition = {
    tenantId: m.tenant,
    id: m.id,
    type: m.type,
    tags: m.tags ? { ...m.tags } : undefined,
    dataRetention: s.ownRetention(m) ?? s.opts.defaultRetentionDays,
  };
  if (m.maxTs !== undefined && m.minTs !== undefined) {
    def.minTimestamp = m.minTs;
    def.maxTimestamp = m.maxTs;
  }
  return def;
}

export function createMetric(s: StoreState, def: MetricDefinition, overwrite: boolean): CreateResult {
  const existing = s.find(def.tenantId, def.type, def.id);
  if (existing) {
    if (!overwrite) return "exists";
    updateDefinition(s, existing, def.tags && Object.keys(def.tags).length ? { ...def.tags } : undefined, def.dataRetention);
    return "overwritten";
  }
  createSeries(s, def.tenantId, def.type, def.id, def.tags, def.dataRetention);
  return "created";
}

export function findMetrics(s: StoreState, tenant: string, filter: MetricFilter): MetricDefinition[] {
  const out: MetricDefinition[] = [];
  if (filter.ids) {
    const types: MetricType[] = filter.type ? [filter.type] : ["gauge", "availability", "counter", "string"];
    for (const id of filter.ids) {
      for (const t of types) {
        const m = s.find(tenant, t, id);
        if (m) out.push(definition(s, m));
      }
    }
    return out;
  }
  for (const m of s.byTenant.get(tenant) ?? []) {
    if (!filter.type || m.type === filter.type) out.push(definition(s, m));
  }
  return out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : a.type < b.type ? -1 : 1));
}

/** The store's own series objects (live: their spans follow the writes), not copies. */
export function listSeries(s: StoreState, tenant: string): SeriesEntry[] {
  return [...(s.byTenant.get(tenant) ?? [])];
}

export function updateTags(s: StoreState, tenant: string, type: MetricType, id: string, tags: Tags): void {
  const m = s.find(tenant, type, id);
  if (!m) {
    createSeries(s, tenant, type, id, tags, undefined);
    return;
  }
  updateDefinition(s, m, { ...(m.tags ?? {}), ...tags }, s.ownRetention(m));
}

export function ensureTags(s: StoreState, tenant: string, items: { type: MetricType; id: string; tags: Tags }[]): void {
  // Remote write asks for every series of every request: the series map is found once per type,
  // and tags given as the same frozen object as last time are known equal without comparing.
  const changed: typeof items = [];
  let lastType: MetricType | undefined;
  let kind: ByIdTable<SeriesMeta> | undefined;
  for (const it of items) {
    if (it.type !== lastType) {
      lastType = it.type;
      kind = s.byKind.get(kindKey(tenant, it.type));
    }
    const m = kind?.get(it.id);
    if (m && m.tags === it.tags) continue;
    if (m && sameTags(m.tags, it.tags)) {
      // Equal and frozen: the series keeps that one object, and its own copy (read from the
      // database at start) goes (issue 28: a restarted collector held both for every series).
      if (Object.isFrozen(it.tags) && m.tags !== undefined) m.tags = it.tags;
      continue;
    }
    changed.push(it);
  }
  if (changed.length === 0) return;
  // Stored first; memory follows the commit (a failed one changes nothing).
  let newTenant = false;
  const created = new Map<string, SeriesMeta>();
  const updated = new Map<SeriesMeta, Tags | undefined>();
  s.writing(() =>
    s.db.transaction(() => {
      newTenant = s.insertTenantRow(tenant);
      for (const it of changed) {
        const k = key(tenant, it.type, it.id);
        const m = s.find(tenant, it.type, it.id);
        // A frozen object (remote write's) cannot change under the store: kept as it is.
        const tags = Object.keys(it.tags).length ? (Object.isFrozen(it.tags) ? it.tags : { ...it.tags }) : undefined;
        if (m) {
          s.st.updateSeriesDef.run(tags ? JSON.stringify(tags) : null, s.ownRetention(m) ?? null, m.sid);
          updated.set(m, tags);
        } else if (!created.has(k)) created.set(k, s.insertSeriesRow(tenant, it.type, it.id, tags, undefined));
      }
    })(),
  );
  if (newTenant) s.tenants.set(tenant, { id: tenant });
  for (const m of created.values()) s.register(m);
  // About a kilobyte of garbage a new series (keys, tag JSON, the request's label strings), told to
  // the memory governor: remote write's first round registers 50,000 at once, and its garbage was
  // the live phase's peak (issue 28, docs/storage.md "Frozen heads").
  if (created.size > 0) s.opts.released?.(created.size * 1024);
  for (const [m, tags] of updated) {
    m.tags = tags;
  }
  if (updated.size > 0) s.seriesVersion++;
}

export function deleteTags(s: StoreState, tenant: string, type: MetricType, id: string, names: string[]): boolean {
  const m = s.find(tenant, type, id);
  if (!m) return false;
  if (m.tags) {
    const next = { ...m.tags };
    for (const n of names) delete next[n];
    updateDefinition(s, m, Object.keys(next).length ? next : undefined, s.ownRetention(m));
  }
  return true;
}

/** Removes a metric and all its points (post-0.16 DELETE /{type}/{id}). */
export function deleteMetric(s: StoreState, tenant: string, type: MetricType, id: string): boolean {
  const m = s.find(tenant, type, id);
  if (!m) return false;
  s.writing(() => s.db.transaction(() => deleteSeriesRows(s, m))());
  forget(s, m);
  return true;
}

function deleteSeriesRows(s: StoreState, m: SeriesMeta): void {
  s.chunkEpoch++;
  s.lists.drop(m.sid);
  s.db.prepare("DELETE FROM chunks WHERE sid = ?").run(m.sid);
  s.db.prepare("DELETE FROM series WHERE sid = ?").run(m.sid);
}

/** Drops a deleted series from memory (after its rows were deleted). */
function forget(s: StoreState, m: SeriesMeta): void {
  s.definitionsVersion++;
  if (m.head) s.headPoints -= m.head.length;
  s.markClean(m);
  s.unregister(m);
}
