import type { SQL } from "bun";
import type { MetricType, Tags } from "../../../../src/metrics/model.ts";
import { type PgSchema, pgBaseline } from "../../../../src/postgres/migrations.ts";
import type { Run } from "../../../../src/metrics/run.ts";
import { insertChunks } from "./chunks.ts";
import { partitionStep } from "./partition-step.ts";

/**
 * The metrics tables in PostgreSQL (docs/scale-out.md, "Metrics"). Version 2 on: a write
 * commits one row of `metric_blocks` per series it touches (the point codec's block of its
 * points; the later block wins a timestamp) and every collector reads them from there at once;
 * sealing later merges a series' blocks into compressed `metric_chunks` (as in SQLite) in one
 * transaction that deletes the blocks it sealed. Version 1 had one row a point
 * (`metric_points`); its step seals them. Timestamps are DOUBLE PRECISION like the codec's;
 * expiry times are milliseconds.
 */
const DDL = [
  `CREATE TABLE metric_tenants (id TEXT COLLATE "C" PRIMARY KEY, retentions TEXT, created BIGINT NOT NULL)`,
  `CREATE TABLE metric_series (
    sid BIGSERIAL PRIMARY KEY,
    tenant TEXT COLLATE "C" NOT NULL,
    type TEXT COLLATE "C" NOT NULL,
    metric TEXT COLLATE "C" NOT NULL,
    tags TEXT,
    retention BIGINT,
    min_ts DOUBLE PRECISION,
    max_ts DOUBLE PRECISION,
    UNIQUE (tenant, type, metric))`,
  `CREATE TABLE metric_points (
    sid BIGINT NOT NULL REFERENCES metric_series (sid) ON DELETE CASCADE,
    ts DOUBLE PRECISION NOT NULL,
    num DOUBLE PRECISION,
    str TEXT,
    tags TEXT,
    expires_at BIGINT NOT NULL,
    written BIGINT NOT NULL,
    PRIMARY KEY (sid, ts))`,
  `CREATE TABLE metric_chunks (
    cid BIGSERIAL PRIMARY KEY,
    sid BIGINT NOT NULL REFERENCES metric_series (sid) ON DELETE CASCADE,
    start_ts DOUBLE PRECISION NOT NULL,
    end_ts DOUBLE PRECISION NOT NULL,
    n INTEGER NOT NULL,
    expires_at BIGINT NOT NULL,
    body BYTEA NOT NULL)`,
  "CREATE INDEX metric_chunks_by_series ON metric_chunks (sid, start_ts)",
  "CREATE INDEX metric_chunks_by_expiry ON metric_chunks (expires_at)",
];

interface LegacyRow {
  ts: number;
  num: number | null;
  str: string | null;
  tags: string | null;
  expires_at: string;
}

/**
 * Version 2: unsealed points become blocks. The rows of version 1 are sealed into chunks
 * (each chunk expiring with the latest of its points, as a seal does), in the step's
 * transaction: no point is lost, none kept twice. Chunks of 1,024 points, the store's default.
 */
async function blocksStep(tx: SQL): Promise<void> {
  // No foreign key: its check costs about 40 % of a block's insert. Deleting a series deletes
  // its blocks in the same statement; a block committed by a write racing that delete is left
  // without a series, never read, and deleted by the next seal (sids are never reused).
  await tx.unsafe(`CREATE TABLE metric_blocks (
    sid BIGINT NOT NULL,
    bid BIGSERIAL,
    start_ts DOUBLE PRECISION NOT NULL,
    end_ts DOUBLE PRECISION NOT NULL,
    n INTEGER NOT NULL,
    written BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    body BYTEA NOT NULL,
    PRIMARY KEY (sid, bid))`);
  // Blocks are compressed already: no pglz attempt on large ones.
  await tx.unsafe("ALTER TABLE metric_blocks ALTER COLUMN body SET STORAGE EXTERNAL");
  const sids = (await tx.unsafe("SELECT DISTINCT p.sid, s.type FROM metric_points p JOIN metric_series s ON s.sid = p.sid ORDER BY p.sid")) as {
    sid: string;
    type: MetricType;
  }[];
  for (const { sid, type } of sids) {
    const rows = (await tx.unsafe("SELECT ts, num, str, tags, expires_at FROM metric_points WHERE sid = $1 ORDER BY ts", [sid])) as LegacyRow[];
    const numeric = type !== "string";
    const anyTags = rows.some((r) => r.tags !== null);
    const run: Run = {
      ts: Float64Array.from(rows, (r) => r.ts),
      nums: numeric ? Float64Array.from(rows, (r) => r.num ?? Number.NaN) : undefined,
      strs: numeric ? undefined : rows.map((r) => r.str ?? ""),
      tags: anyTags ? rows.map((r) => (r.tags ? (JSON.parse(r.tags) as Tags) : undefined)) : undefined,
    };
    await insertChunks(tx, Number(sid), run, 1024, (a, b) => {
      let e = 0;
      for (let i = a; i < b; i++) e = Math.max(e, Number(rows[i]!.expires_at));
      return e;
    });
  }
  await tx.unsafe("DROP TABLE metric_points");
}

/**
 * Version 4: the chunks' primary key (sid, cid) instead of (cid), so that every unique key of the
 * point tables (blocks and chunks) holds `sid`: what Citus requires of a distribution column
 * (docs/scale-out.md, "Citus"). Chunk lookups by series can use it as well.
 */
async function chunkKeyStep(tx: SQL): Promise<void> {
  await tx.unsafe("ALTER TABLE metric_chunks DROP CONSTRAINT metric_chunks_pkey");
  await tx.unsafe("ALTER TABLE metric_chunks ADD PRIMARY KEY (sid, cid)");
}

/**
 * Version 5: rollup tiers (docs/storage.md, "Rollup tiers"; docs/scale-out.md). `metric_rollups`
 * holds one compressed block per series, tier (step, ms) and span of buckets; `metric_rollup_queue`
 * the sealed chunks no tier holds yet, filled by a trigger in the seal's own transaction (step 0:
 * every tier; another step: only that tier, for a tier added later) and emptied by the roller of
 * the partition's lease holder in the transaction that writes the blocks; `metric_rollup_tiers`
 * the tiers each partition has. The chunks stored at the upgrade are queued by the first roller
 * of each partition.
 */
async function rollupStep(tx: SQL): Promise<void> {
  // No foreign keys: the tables the stores' tests truncate stay truncatable alone. A deleted
  // series or chunk takes its rows along by the triggers below (rows of a truncated one are
  // never read: ids are not reused, and the roller drops queue entries without their chunk).
  await tx.unsafe(`CREATE TABLE metric_rollups (
    sid BIGINT NOT NULL,
    step BIGINT NOT NULL,
    block_start BIGINT NOT NULL,
    written BIGINT NOT NULL,
    body BYTEA NOT NULL,
    PRIMARY KEY (sid, step, block_start))`);
  await tx.unsafe("ALTER TABLE metric_rollups ALTER COLUMN body SET STORAGE EXTERNAL");
  await tx.unsafe("CREATE INDEX metric_rollups_by_written ON metric_rollups (step, written)");
  await tx.unsafe(`CREATE TABLE metric_rollup_queue (
    part SMALLINT NOT NULL,
    sid BIGINT NOT NULL,
    cid BIGINT NOT NULL,
    step BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (part, sid, cid, step))`);
  await tx.unsafe("CREATE INDEX metric_rollup_queue_by_chunk ON metric_rollup_queue (sid, cid)");
  await tx.unsafe("CREATE TABLE metric_rollup_tiers (part SMALLINT NOT NULL, step BIGINT NOT NULL, PRIMARY KEY (part, step))");
  await tx.unsafe(`CREATE FUNCTION metric_rollup_enqueue() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO metric_rollup_queue (part, sid, cid) SELECT s.part, n.sid, n.cid FROM added n JOIN metric_series s ON s.sid = n.sid;
      RETURN NULL;
    END $$`);
  await tx.unsafe("CREATE TRIGGER metric_chunks_rollup AFTER INSERT ON metric_chunks REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION metric_rollup_enqueue()");
  await tx.unsafe(`CREATE FUNCTION metric_rollup_unqueue() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      DELETE FROM metric_rollup_queue q USING gone g WHERE q.sid = g.sid AND q.cid = g.cid;
      RETURN NULL;
    END $$`);
  await tx.unsafe("CREATE TRIGGER metric_chunks_unqueue AFTER DELETE ON metric_chunks REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION metric_rollup_unqueue()");
  await tx.unsafe(`CREATE FUNCTION metric_rollup_forget() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      DELETE FROM metric_rollups r USING gone g WHERE r.sid = g.sid;
      DELETE FROM metric_rollup_queue q USING gone g WHERE q.sid = g.sid;
      RETURN NULL;
    END $$`);
  await tx.unsafe("CREATE TRIGGER metric_series_rollups AFTER DELETE ON metric_series REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION metric_rollup_forget()");
}

export const METRICS_PG: PgSchema = {
  name: "metrics",
  migrations: [
    pgBaseline("tenants, series, recent points and sealed chunks", DDL),
    { version: 2, description: "unsealed points as one block per series and write (metric_blocks); rows of metric_points sealed", up: blocksStep },
    { version: 3, description: "work partition of each series and block (sealing and retention by lease holders)", up: partitionStep },
    { version: 4, description: "sealed chunks keyed by (sid, cid): every key of the point tables holds sid (a Citus distribution column)", up: chunkKeyStep },
    { version: 5, description: "rollup tiers: blocks of aggregates per series, and the queue of chunks to roll up", up: rollupStep },
  ],
};
