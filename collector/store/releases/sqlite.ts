import type { Database } from "bun:sqlite";
import { join } from "node:path";
import type { Logger } from "../../../src/log/logger.ts";
import { migrate } from "../../../src/sqlite/migrations.ts";
import { openDatabase } from "../../../src/sqlite/open.ts";
import { reportingFailures, type StorageHealth } from "../../../src/sqlite/storage-health.ts";
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
import { RELEASES_DB } from "./schema.ts";
import type { AgentReport, ReleaseBinary, ReleaseStore, RolloutChange, RolloutRecord, TargetChange } from "./types.ts";

/** The statements are written with PostgreSQL's $n; SQLite's numbered form is ?n. */
const q = (text: string) => text.replace(/\$(\d+)/g, "?$1");
type Param = string | number | null | Uint8Array;

/** Releases, rollouts and reports in their own database file, releases.db. */
export class SqliteReleaseStore implements ReleaseStore {
  private readonly db: Database;
  private readonly health: StorageHealth | undefined;

  constructor(opts: { dataDir: string; synchronous?: "FULL" | "NORMAL"; log: Logger; health?: StorageHealth }) {
    this.db = openDatabase(join(opts.dataDir, "releases.db"), { synchronous: opts.synchronous ?? "FULL", cacheKiB: 2048 });
    migrate(this.db, RELEASES_DB, (m) => opts.log.info(`upgraded ${RELEASES_DB.name} to schema ${m.version}`, { step: m.description }));
    this.health = opts.health;
    this.health?.register("releases", this.db);
  }

  private run(text: string, params: Param[]): number {
    return reportingFailures(this.health, "releases", () => this.db.query(q(text)).run(...params).changes);
  }

  private all<T>(text: string, params: Param[] = []): T[] {
    return this.db.query<T, Param[]>(q(text)).all(...params);
  }

  async putBinary(b: ReleaseBinary, pieces: Iterable<Uint8Array>): Promise<boolean> {
    return reportingFailures(this.health, "releases", () =>
      this.db.transaction(() => {
        if (this.db.query(q(INSERT_BINARY)).run(...binaryParams(b)).changes === 0) return false;
        let n = 0;
        const insert = this.db.query(q(INSERT_PIECE));
        for (const piece of pieces) insert.run(b.version, b.arch, n++, piece);
        return true;
      })(),
    );
  }

  async binaries(version?: string): Promise<ReleaseBinary[]> {
    const where = version === undefined ? "" : " WHERE version = $1";
    return this.all<BinaryRow>(`SELECT * FROM release_binaries${where} ORDER BY version, arch`, version === undefined ? [] : [version]).map(toBinary);
  }

  async readBinary(version: string, arch: string): Promise<AsyncIterable<Uint8Array> | undefined> {
    if (this.all("SELECT 1 FROM release_binaries WHERE version = $1 AND arch = $2", [version, arch]).length === 0) return undefined;
    const piece = this.db.query<{ data: Uint8Array }, Param[]>(q("SELECT data FROM release_pieces WHERE version = $1 AND arch = $2 AND n = $3"));
    return {
      async *[Symbol.asyncIterator]() {
        for (let n = 0; ; n++) {
          const row = piece.get(version, arch, n);
          if (!row) return;
          yield row.data;
        }
      },
    };
  }

  async deleteRelease(version: string): Promise<number> {
    return reportingFailures(this.health, "releases", () =>
      this.db.transaction(() => {
        this.db.query(q("DELETE FROM release_pieces WHERE version = $1")).run(version);
        return this.db.query(q("DELETE FROM release_binaries WHERE version = $1")).run(version).changes;
      })(),
    );
  }

  async insertRollout(r: RolloutRecord): Promise<boolean> {
    return reportingFailures(this.health, "releases", () =>
      this.db.transaction(() => {
        if (this.db.query(q(INSERT_ROLLOUT)).run(...rolloutParams(r)).changes === 0) return false;
        const insert = this.db.query(q(INSERT_TARGET));
        for (const t of r.targets) insert.run(...targetParams(r.tenant, r.id, t));
        return true;
      })(),
    );
  }

  private withTargets(rows: RolloutRow[]): RolloutRecord[] {
    return rows.map((row) => {
      const targets = this.all<TargetRow>("SELECT * FROM rollout_targets WHERE tenant = $1 AND rollout = $2 ORDER BY feed", [row.tenant, row.id]);
      return toRollout(row, byRollout(targets).get(row.id) ?? []);
    });
  }

  async rollouts(tenant: string): Promise<RolloutRecord[]> {
    return this.withTargets(this.all<RolloutRow>("SELECT * FROM rollouts WHERE tenant = $1 ORDER BY created_at, id", [tenant]));
  }

  async rollout(tenant: string, id: string): Promise<RolloutRecord | undefined> {
    return this.withTargets(this.all<RolloutRow>("SELECT * FROM rollouts WHERE tenant = $1 AND id = $2", [tenant, id]))[0];
  }

  async activeRollouts(): Promise<RolloutRecord[]> {
    return this.withTargets(this.all<RolloutRow>("SELECT * FROM rollouts WHERE state IN ('running', 'paused') ORDER BY tenant, created_at, id"));
  }

  async updateRollout(tenant: string, id: string, revision: number, c: RolloutChange, at: number): Promise<boolean> {
    return this.run(UPDATE_ROLLOUT, [c.state, c.batch, c.reason ?? null, at, tenant, id, revision]) === 1;
  }

  async updateTarget(tenant: string, id: string, feed: string, c: TargetChange): Promise<boolean> {
    return this.run(UPDATE_TARGET, [c.state, c.reason ?? null, c.at, tenant, id, feed]) === 1;
  }

  async saveReport(r: AgentReport): Promise<void> {
    this.run(UPSERT_REPORT, reportParams(r));
  }

  async reports(tenant: string): Promise<AgentReport[]> {
    return this.all<ReportRow>("SELECT * FROM agent_reports WHERE tenant = $1 ORDER BY feed", [tenant]).map(toReport);
  }

  async close(): Promise<void> {
    this.health?.unregister("releases");
    this.db.close();
  }
}
