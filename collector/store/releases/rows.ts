import type { UpgradeReport } from "../../../src/protocol/upgrade-messages.ts";
import type { ReleaseArch } from "../../../src/release/signature.ts";
import type { AgentReport, ReleaseBinary, RolloutRecord, RolloutState, RolloutTarget, TargetState } from "./types.ts";

/** Rows as both databases return them (PostgreSQL's BIGINT may come back as a string). */
type Num = number | string | bigint;

export interface BinaryRow {
  version: string;
  arch: string;
  size: Num;
  sha256: string;
  signature: string;
  uploaded_at: Num;
  uploaded_by: string;
}

export function toBinary(r: BinaryRow): ReleaseBinary {
  return { version: r.version, arch: r.arch as ReleaseArch, size: Number(r.size), sha256: r.sha256, signature: r.signature, uploadedAt: Number(r.uploaded_at), uploadedBy: r.uploaded_by };
}

export function binaryParams(b: ReleaseBinary): (string | number)[] {
  return [b.version, b.arch, b.size, b.sha256, b.signature, b.uploadedAt, b.uploadedBy];
}

export interface RolloutRow {
  tenant: string;
  id: string;
  version: string;
  selector: string;
  canary: Num;
  batches: string;
  force: Num | boolean;
  deadline_ms: Num;
  timeout_ms: Num;
  state: string;
  reason: string | null;
  batch: Num;
  created_at: Num;
  created_by: string;
  updated_at: Num;
  revision: Num;
}

export interface TargetRow {
  rollout: string;
  feed: string;
  batch: Num;
  state: string;
  from_version: string | null;
  reason: string | null;
  at: Num | null;
}

export function toTarget(r: TargetRow): RolloutTarget {
  return {
    feed: r.feed,
    batch: Number(r.batch),
    state: r.state as TargetState,
    ...(r.from_version === null ? {} : { from: r.from_version }),
    ...(r.reason === null ? {} : { reason: r.reason }),
    ...(r.at === null ? {} : { at: Number(r.at) }),
  };
}

export function toRollout(r: RolloutRow, targets: RolloutTarget[]): RolloutRecord {
  return {
    tenant: r.tenant,
    id: r.id,
    version: r.version,
    selector: JSON.parse(r.selector),
    canary: Number(r.canary),
    batches: JSON.parse(r.batches),
    force: r.force === true || Number(r.force) === 1,
    deadlineMs: Number(r.deadline_ms),
    timeoutMs: Number(r.timeout_ms),
    state: r.state as RolloutState,
    ...(r.reason === null ? {} : { reason: r.reason }),
    batch: Number(r.batch),
    createdAt: Number(r.created_at),
    createdBy: r.created_by,
    updatedAt: Number(r.updated_at),
    revision: Number(r.revision),
    targets,
  };
}

/** Parameters of a rollout's row, in the column order of the INSERT. */
export function rolloutParams(r: RolloutRecord): (string | number | null)[] {
  return [
    r.tenant,
    r.id,
    r.version,
    JSON.stringify(r.selector),
    r.canary,
    JSON.stringify(r.batches),
    r.force ? 1 : 0,
    r.deadlineMs,
    r.timeoutMs,
    r.state,
    r.reason ?? null,
    r.batch,
    r.createdAt,
    r.createdBy,
    r.updatedAt,
    r.revision,
  ];
}

export function targetParams(tenant: string, rollout: string, t: RolloutTarget): (string | number | null)[] {
  return [tenant, rollout, t.feed, t.batch, t.state, t.from ?? null, t.reason ?? null, t.at ?? null];
}

/** Targets grouped by rollout id, each list in feed order. */
export function byRollout(rows: TargetRow[]): Map<string, RolloutTarget[]> {
  const out = new Map<string, RolloutTarget[]>();
  for (const row of rows) {
    const list = out.get(row.rollout) ?? [];
    list.push(toTarget(row));
    out.set(row.rollout, list);
  }
  return out;
}

export interface ReportRow {
  tenant: string;
  feed: string;
  version: string | null;
  arch: string | null;
  upgrade: string | null;
  tags: string | null;
  at: Num;
}

export function toReport(r: ReportRow): AgentReport {
  return {
    tenant: r.tenant,
    feed: r.feed,
    ...(r.version === null ? {} : { version: r.version }),
    ...(r.arch === null ? {} : { arch: r.arch }),
    ...(r.upgrade === null ? {} : { upgrade: JSON.parse(r.upgrade) as UpgradeReport }),
    ...(r.tags === null ? {} : { tags: JSON.parse(r.tags) as Record<string, string> }),
    at: Number(r.at),
  };
}

export function reportParams(r: AgentReport): (string | number | null)[] {
  return [r.tenant, r.feed, r.version ?? null, r.arch ?? null, r.upgrade ? JSON.stringify(r.upgrade) : null, r.tags ? JSON.stringify(r.tags) : null, r.at];
}

export const INSERT_BINARY = "INSERT INTO release_binaries (version, arch, size, sha256, signature, uploaded_at, uploaded_by) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (version, arch) DO NOTHING";
export const INSERT_PIECE = "INSERT INTO release_pieces (version, arch, n, data) VALUES ($1, $2, $3, $4)";
export const INSERT_ROLLOUT = `INSERT INTO rollouts (tenant, id, version, selector, canary, batches, force, deadline_ms, timeout_ms, state, reason, batch, created_at, created_by, updated_at, revision)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) ON CONFLICT (tenant, id) DO NOTHING`;
export const INSERT_TARGET = "INSERT INTO rollout_targets (tenant, rollout, feed, batch, state, from_version, reason, at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)";
export const UPDATE_ROLLOUT = "UPDATE rollouts SET state = $1, batch = $2, reason = $3, updated_at = $4, revision = revision + 1 WHERE tenant = $5 AND id = $6 AND revision = $7";
/** A final state is never left: a late or repeated report cannot undo an outcome. */
export const UPDATE_TARGET = "UPDATE rollout_targets SET state = $1, reason = $2, at = $3 WHERE tenant = $4 AND rollout = $5 AND feed = $6 AND state NOT IN ('succeeded', 'failed')";
export const UPSERT_REPORT = `INSERT INTO agent_reports (tenant, feed, version, arch, upgrade, tags, at) VALUES ($1, $2, $3, $4, $5, $6, $7)
  ON CONFLICT (tenant, feed) DO UPDATE SET version = excluded.version, arch = excluded.arch, upgrade = COALESCE(excluded.upgrade, agent_reports.upgrade), tags = excluded.tags, at = excluded.at`;
