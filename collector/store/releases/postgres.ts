import type { SQL } from "bun";
import { postgresProbe } from "../../../src/postgres/probe.ts";
import { reportingFailuresAsync, type StorageHealth } from "../../../src/sqlite/storage-health.ts";
import {
  type BinaryRow,
  binaryParams,
  byRollout,
  INSERT_BINARY,
  INSERT_PIECE,
  INSERT_ROLLOUT,
  INSERT_TARGET,
  type ReportRow,
  reportParams,
  type RolloutRow,
  rolloutParams,
  type TargetRow,
  targetParams,
  toBinary,
  toReport,
  toRollout,
  UPDATE_ROLLOUT,
  UPDATE_TARGET,
  UPSERT_REPORT,
} from "./rows.ts";
import type { AgentReport, ReleaseBinary, ReleaseStore, RolloutChange, RolloutRecord, TargetChange } from "./types.ts";

type Param = string | number | null | Uint8Array;

/** Releases, rollouts and reports in PostgreSQL (RELEASES_PG), as SqliteReleaseStore keeps them in releases.db. */
export class PostgresReleaseStore implements ReleaseStore {
  private readonly sql: SQL;
  private readonly health: StorageHealth | undefined;

  /** `sql` is the collector's pool (not closed here), its tables migrated before. */
  constructor(opts: { sql: SQL; health?: StorageHealth }) {
    this.sql = opts.sql;
    this.health = opts.health;
    this.health?.registerTarget("releases", postgresProbe(this.sql, "releases"));
  }

  private async run(text: string, params: Param[]): Promise<number> {
    const res = await reportingFailuresAsync(this.health, "releases", () => this.sql.unsafe(text, params));
    return (res as { count: number }).count;
  }

  private async all<T>(text: string, params: Param[] = []): Promise<T[]> {
    return (await this.sql.unsafe(text, params)) as T[];
  }

  async putBinary(b: ReleaseBinary, pieces: Iterable<Uint8Array>): Promise<boolean> {
    return reportingFailuresAsync(this.health, "releases", () =>
      this.sql.begin(async (tx) => {
        const res = (await tx.unsafe(INSERT_BINARY, binaryParams(b))) as unknown as { count: number };
        if (res.count === 0) return false;
        let n = 0;
        for (const piece of pieces) await tx.unsafe(INSERT_PIECE, [b.version, b.arch, n++, piece]);
        return true;
      }),
    );
  }

  async binaries(version?: string): Promise<ReleaseBinary[]> {
    const where = version === undefined ? "" : " WHERE version = $1";
    return (await this.all<BinaryRow>(`SELECT * FROM release_binaries${where} ORDER BY version, arch`, version === undefined ? [] : [version])).map(toBinary);
  }

  async readBinary(version: string, arch: string): Promise<AsyncIterable<Uint8Array> | undefined> {
    if ((await this.all("SELECT 1 FROM release_binaries WHERE version = $1 AND arch = $2", [version, arch])).length === 0) return undefined;
    const all = this.all.bind(this);
    return {
      async *[Symbol.asyncIterator]() {
        for (let n = 0; ; n++) {
          const rows = await all<{ data: Uint8Array }>("SELECT data FROM release_pieces WHERE version = $1 AND arch = $2 AND n = $3", [version, arch, n]);
          if (rows.length === 0) return;
          yield new Uint8Array(rows[0]!.data);
        }
      },
    };
  }

  async deleteRelease(version: string): Promise<number> {
    return reportingFailuresAsync(this.health, "releases", () =>
      this.sql.begin(async (tx) => {
        await tx.unsafe("DELETE FROM release_pieces WHERE version = $1", [version]);
        return ((await tx.unsafe("DELETE FROM release_binaries WHERE version = $1", [version])) as unknown as { count: number }).count;
      }),
    );
  }

  async insertRollout(r: RolloutRecord): Promise<boolean> {
    return reportingFailuresAsync(this.health, "releases", () =>
      this.sql.begin(async (tx) => {
        const res = (await tx.unsafe(INSERT_ROLLOUT, rolloutParams(r))) as unknown as { count: number };
        if (res.count === 0) return false;
        for (const t of r.targets) await tx.unsafe(INSERT_TARGET, targetParams(r.tenant, r.id, t));
        return true;
      }),
    );
  }

  private async withTargets(rows: RolloutRow[]): Promise<RolloutRecord[]> {
    const out: RolloutRecord[] = [];
    for (const row of rows) {
      const targets = await this.all<TargetRow>("SELECT * FROM rollout_targets WHERE tenant = $1 AND rollout = $2 ORDER BY feed", [row.tenant, row.id]);
      out.push(toRollout(row, byRollout(targets).get(row.id) ?? []));
    }
    return out;
  }

  async rollouts(tenant: string): Promise<RolloutRecord[]> {
    return this.withTargets(await this.all<RolloutRow>("SELECT * FROM rollouts WHERE tenant = $1 ORDER BY created_at, id", [tenant]));
  }

  async rollout(tenant: string, id: string): Promise<RolloutRecord | undefined> {
    return (await this.withTargets(await this.all<RolloutRow>("SELECT * FROM rollouts WHERE tenant = $1 AND id = $2", [tenant, id])))[0];
  }

  async activeRollouts(): Promise<RolloutRecord[]> {
    return this.withTargets(await this.all<RolloutRow>("SELECT * FROM rollouts WHERE state IN ('running', 'paused') ORDER BY tenant, created_at, id"));
  }

  async updateRollout(tenant: string, id: string, revision: number, c: RolloutChange, at: number): Promise<boolean> {
    return (await this.run(UPDATE_ROLLOUT, [c.state, c.batch, c.reason ?? null, at, tenant, id, revision])) === 1;
  }

  async updateTarget(tenant: string, id: string, feed: string, c: TargetChange): Promise<boolean> {
    return (await this.run(UPDATE_TARGET, [c.state, c.reason ?? null, c.at, tenant, id, feed])) === 1;
  }

  async saveReport(r: AgentReport): Promise<void> {
    await this.run(UPSERT_REPORT, reportParams(r));
  }

  async reports(tenant: string): Promise<AgentReport[]> {
    return (await this.all<ReportRow>("SELECT * FROM agent_reports WHERE tenant = $1 ORDER BY feed", [tenant])).map(toReport);
  }

  async close(): Promise<void> {
    this.health?.unregister("releases");
  }
}
