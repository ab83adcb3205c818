import { type PgSchema, pgBaseline } from "../../../../src/postgres/migrations.ts";

/**
 * The metrics tables in PostgreSQL (docs/scale-out.md, "Metrics"). Points are committed to
 * `metric_points` (one row a point, the last write of a timestamp wins) and read from there at
 * once by every collector; sealing later moves a series' rows into compressed `metric_chunks`
 * (the point codec's blocks, as in SQLite) in one transaction that deletes the rows it sealed.
 * Timestamps are DOUBLE PRECISION like the codec's; expiry times are milliseconds.
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

export const METRICS_PG: PgSchema = {
  name: "metrics",
  migrations: [pgBaseline("tenants, series, recent points and sealed chunks", DDL)],
};
