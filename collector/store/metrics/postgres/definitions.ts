import type { SQL } from "bun";
import type { MetricDefinition, MetricType, Tags, Tenant } from "../../../../src/metrics/model.ts";
import type { CreateResult, MetricFilter, SeriesEntry } from "../types.ts";
import { type PgContext, textArray } from "./context.ts";
import { seriesPartition } from "./partition-step.ts";

/**
 * Tenants and metric definitions of the PostgreSQL metrics store. Nothing is cached: every
 * collector sharing the database sees a definition as soon as one of them committed it.
 */

const ALL_TYPES: MetricType[] = ["gauge", "availability", "counter", "string"];

interface SeriesRow {
  type: MetricType;
  metric: string;
  tags: string | null;
  retention: string | null;
  lo: number | null;
  hi: number | null;
}

const tagsText = (t: Tags | undefined) => (t && Object.keys(t).length ? JSON.stringify(t) : null);

// Bounds are those of the sealed chunks (kept on the series row) and of the unsealed blocks.
const SERIES_SELECT = `SELECT s.type, s.metric, s.tags, s.retention, least(s.min_ts, p.lo) AS lo, greatest(s.max_ts, p.hi) AS hi
  FROM metric_series s LEFT JOIN LATERAL (SELECT min(start_ts) AS lo, max(end_ts) AS hi FROM metric_blocks WHERE part = s.part AND sid = s.sid) p ON true`;

function toDefinition(c: PgContext, tenant: string, r: SeriesRow): MetricDefinition {
  const def: MetricDefinition = {
    tenantId: tenant,
    id: r.metric,
    type: r.type,
    tags: r.tags ? (JSON.parse(r.tags) as Tags) : undefined,
    dataRetention: r.retention !== null ? Number(r.retention) : c.defaultRetentionDays,
  };
  if (r.lo !== null && r.hi !== null) {
    def.minTimestamp = r.lo;
    def.maxTimestamp = r.hi;
  }
  return def;
}

/** Inserts the tenant row if it is missing (inside the caller's transaction). */
export function insertTenantRow(c: PgContext, t: SQL, id: string): Promise<unknown> {
  return c.rows("INSERT INTO metric_tenants (id, retentions, created) VALUES (?, NULL, ?) ON CONFLICT (id) DO NOTHING", [id, c.now()], t);
}

// ---- tenants ---------------------------------------------------------------------------

export async function createTenant(c: PgContext, t: Tenant, overwrite: boolean): Promise<CreateResult> {
  const retentions = t.retentions && Object.keys(t.retentions).length ? JSON.stringify(t.retentions) : null;
  const conflict = overwrite ? "DO UPDATE SET retentions = excluded.retentions" : "DO NOTHING";
  const rows = await c.writing(() =>
    c.rows<{ inserted: boolean }>(
      `INSERT INTO metric_tenants (id, retentions, created) VALUES (?, ?, ?) ON CONFLICT (id) ${conflict} RETURNING (xmax = 0) AS inserted`,
      [t.id, retentions, c.now()],
    ),
  );
  if (rows.length === 0) return "exists";
  return rows[0]!.inserted ? "created" : "overwritten";
}

const toTenant = (r: { id: string; retentions: string | null }): Tenant => ({ id: r.id, retentions: r.retentions ? JSON.parse(r.retentions) : undefined });

export async function listTenants(c: PgContext): Promise<Tenant[]> {
  return (await c.rows<{ id: string; retentions: string | null }>("SELECT id, retentions FROM metric_tenants ORDER BY id")).map(toTenant);
}

export async function getTenant(c: PgContext, id: string): Promise<Tenant | undefined> {
  const rows = await c.rows<{ id: string; retentions: string | null }>("SELECT id, retentions FROM metric_tenants WHERE id = ?", [id]);
  return rows[0] && toTenant(rows[0]);
}

/** The series go with their chunks (ON DELETE CASCADE) and blocks. */
export async function deleteTenant(c: PgContext, id: string): Promise<void> {
  await c.tx(async (t) => {
    await c.rows(
      "WITH d AS (DELETE FROM metric_series WHERE tenant = ? RETURNING part, sid) DELETE FROM metric_blocks WHERE (part, sid) IN (SELECT part, sid FROM d)",
      [id],
      t,
    );
    await c.rows("DELETE FROM metric_tenants WHERE id = ?", [id], t);
  });
}

// ---- definitions -----------------------------------------------------------------------

export function createMetric(c: PgContext, def: MetricDefinition, overwrite: boolean): Promise<CreateResult> {
  const tags = tagsText(def.tags);
  const retention = def.dataRetention ?? null;
  return c.tx(async (t) => {
    await insertTenantRow(c, t, def.tenantId);
    const conflict = overwrite ? "DO UPDATE SET tags = excluded.tags, retention = excluded.retention" : "DO NOTHING";
    const rows = await c.rows<{ inserted: boolean }>(
      `INSERT INTO metric_series (tenant, part, type, metric, tags, retention) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (tenant, type, metric) ${conflict} RETURNING (xmax = 0) AS inserted`,
      [def.tenantId, seriesPartition(def.tenantId), def.type, def.id, tags, retention],
      t,
    );
    if (rows.length === 0) return "exists";
    return rows[0]!.inserted ? "created" : "overwritten";
  });
}

export async function getMetric(c: PgContext, tenant: string, type: MetricType, id: string): Promise<MetricDefinition | undefined> {
  const rows = await c.rows<SeriesRow>(`${SERIES_SELECT} WHERE s.tenant = ? AND s.type = ? AND s.metric = ?`, [tenant, type, id]);
  return rows[0] && toDefinition(c, tenant, rows[0]);
}

export async function findMetrics(c: PgContext, tenant: string, filter: MetricFilter): Promise<MetricDefinition[]> {
  if (filter.ids) {
    const types = filter.type ? [filter.type] : ALL_TYPES;
    const rows = await c.rows<SeriesRow>(`${SERIES_SELECT} WHERE s.tenant = ? AND s.metric = ANY(?::text[])`, [tenant, textArray(filter.ids)]);
    const byKey = new Map(rows.map((r) => [`${r.type}\u0000${r.metric}`, r]));
    const out: MetricDefinition[] = [];
    for (const id of filter.ids) {
      for (const type of types) {
        const r = byKey.get(`${type}\u0000${id}`);
        if (r) out.push(toDefinition(c, tenant, r));
      }
    }
    return out;
  }
  const rows = filter.type
    ? await c.rows<SeriesRow>(`${SERIES_SELECT} WHERE s.tenant = ? AND s.type = ?`, [tenant, filter.type])
    : await c.rows<SeriesRow>(`${SERIES_SELECT} WHERE s.tenant = ?`, [tenant]);
  const out = rows.map((r) => toDefinition(c, tenant, r));
  return out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : a.type < b.type ? -1 : 1));
}

export async function listSeries(c: PgContext, tenant: string): Promise<SeriesEntry[]> {
  const rows = await c.rows<SeriesRow>(`${SERIES_SELECT} WHERE s.tenant = ?`, [tenant]);
  return rows.map((r) => ({
    type: r.type,
    id: r.metric,
    tags: r.tags ? (JSON.parse(r.tags) as Tags) : undefined,
    minTs: r.lo ?? undefined,
    maxTs: r.hi ?? undefined,
  }));
}

/** Merged in the database (jsonb ||), so that two collectors merging tags at once both count. */
export async function updateTags(c: PgContext, tenant: string, type: MetricType, id: string, tags: Tags): Promise<void> {
  await c.tx(async (t) => {
    await insertTenantRow(c, t, tenant);
    await c.rows(
      `INSERT INTO metric_series (tenant, part, type, metric, tags) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (tenant, type, metric) DO UPDATE
         SET tags = nullif((coalesce(metric_series.tags::jsonb, '{}') || coalesce(excluded.tags::jsonb, '{}'))::text, '{}')`,
      [tenant, seriesPartition(tenant), type, id, tagsText(tags)],
      t,
    );
  });
}

export async function ensureTags(c: PgContext, tenant: string, items: { type: MetricType; id: string; tags: Tags }[]): Promise<void> {
  if (items.length === 0) return;
  // One row per series (the last given wins), in a fixed order: two collectors upserting the
  // same definitions lock them in the same order and cannot deadlock.
  const byKey = new Map<string, { type: MetricType; id: string; tags: string | null }>();
  for (const it of items) byKey.set(`${it.type}\u0000${it.id}`, { type: it.type, id: it.id, tags: tagsText(it.tags) });
  const list = [...byKey.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map((e) => e[1]);
  await c.tx(async (t) => {
    await insertTenantRow(c, t, tenant);
    await c.rows(
      `INSERT INTO metric_series (tenant, part, type, metric, tags)
       SELECT ?, ?, u.type, u.metric, u.tags FROM unnest(?::text[], ?::text[], ?::text[]) WITH ORDINALITY AS u(type, metric, tags, o) ORDER BY u.o
       ON CONFLICT (tenant, type, metric) DO UPDATE SET tags = excluded.tags
         WHERE metric_series.tags::jsonb IS DISTINCT FROM excluded.tags::jsonb`,
      [tenant, seriesPartition(tenant), textArray(list.map((x) => x.type)), textArray(list.map((x) => x.id)), textArray(list.map((x) => x.tags))],
      t,
    );
  });
}

export async function deleteTags(c: PgContext, tenant: string, type: MetricType, id: string, names: string[]): Promise<boolean> {
  const rows = await c.writing(() =>
    c.rows(
      `UPDATE metric_series SET tags = nullif((coalesce(tags::jsonb, '{}') - ?::text[])::text, '{}')
       WHERE tenant = ? AND type = ? AND metric = ? RETURNING sid`,
      [textArray(names), tenant, type, id],
    ),
  );
  return rows.length > 0;
}

/** Removes a metric; its chunks go with it (ON DELETE CASCADE), its blocks in the same statement. */
export async function deleteMetric(c: PgContext, tenant: string, type: MetricType, id: string): Promise<boolean> {
  const rows = await c.writing(() =>
    c.rows(
      `WITH d AS (DELETE FROM metric_series WHERE tenant = ? AND type = ? AND metric = ? RETURNING part, sid),
         b AS (DELETE FROM metric_blocks WHERE (part, sid) IN (SELECT part, sid FROM d))
       SELECT sid FROM d`,
      [tenant, type, id],
    ),
  );
  return rows.length > 0;
}
