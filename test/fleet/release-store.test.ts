/**
 * The release store on SQLite and PostgreSQL, through the same tests: binaries kept in pieces
 * and read back byte for byte, once per version and architecture; rollouts with their targets;
 * compare-and-set of a rollout's state; final target states never left; agents' reports.
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PostgresReleaseStore } from "../../collector/store/releases/postgres.ts";
import { SqliteReleaseStore } from "../../collector/store/releases/sqlite.ts";
import { PIECE_BYTES, type ReleaseBinary, type ReleaseStore, type RolloutRecord } from "../../collector/store/releases/types.ts";
import { createLogger } from "../../src/log/logger.ts";
import { fileTestDatabase } from "../helpers/postgres.ts";

const log = createLogger("silent");
const dirs: string[] = [];
const pg = fileTestDatabase({
  truncate: ["release_binaries", "release_pieces", "rollouts", "rollout_targets", "agent_reports"],
  async cleanup() {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  },
});

const backends: { name: string; place(): () => ReleaseStore }[] = [
  {
    name: "SQLite",
    place() {
      const d = mkdtempSync(join(tmpdir(), "outpost-rstore-"));
      dirs.push(d);
      return () => new SqliteReleaseStore({ dataDir: d, log });
    },
  },
  { name: "PostgreSQL", place: () => () => new PostgresReleaseStore({ sql: pg.sql }) },
];

function pieces(bytes: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += PIECE_BYTES) out.push(bytes.subarray(i, i + PIECE_BYTES));
  return out;
}

function binary(version: string, arch: "x64" | "arm64", bytes: Uint8Array): ReleaseBinary {
  return { version, arch, size: bytes.length, sha256: createHash("sha256").update(bytes).digest("hex"), signature: "c2ln", uploadedAt: 1_700_000_000_000, uploadedBy: "admin" };
}

async function readAll(it: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  for await (const p of it) parts.push(p);
  return Buffer.concat(parts);
}

function rollout(tenant: string, id: string, feeds: string[]): RolloutRecord {
  return {
    tenant,
    id,
    version: "0.2.0",
    selector: { tags: { site: "paris" } },
    canary: 1,
    batches: [50, 100],
    force: false,
    deadlineMs: 60_000,
    timeoutMs: 600_000,
    state: "running",
    batch: 0,
    createdAt: 1,
    createdBy: "alice",
    updatedAt: 1,
    revision: 0,
    targets: feeds.map((feed, i) => ({ feed, batch: i === 0 ? 0 : 1, state: i === 0 ? "ordered" : "pending", from: "0.1.0", at: 1 })),
  };
}

describe.each(backends)("$name release store", ({ place }) => {
  it("keeps a binary in pieces and gives it back byte for byte, once per version and architecture", async () => {
    const open = place();
    const s = open();
    const bytes = randomBytes(2 * PIECE_BYTES + 12_345);
    expect(await s.putBinary(binary("0.2.0", "x64", bytes), pieces(bytes))).toBe(true);
    expect(await s.putBinary(binary("0.2.0", "x64", randomBytes(10)), pieces(randomBytes(10)))).toBe(false);
    const small = randomBytes(100);
    expect(await s.putBinary(binary("0.2.0", "arm64", small), pieces(small))).toBe(true);
    await s.close();

    const again = open();
    expect((await again.binaries()).map((b) => `${b.version}/${b.arch}/${b.size}`)).toEqual([`0.2.0/arm64/100`, `0.2.0/x64/${bytes.length}`]);
    expect(await again.binaries("0.3.0")).toEqual([]);
    const read = await again.readBinary("0.2.0", "x64");
    expect(Buffer.compare(await readAll(read!), bytes)).toBe(0);
    expect(Buffer.compare(await readAll((await again.readBinary("0.2.0", "arm64"))!), small)).toBe(0);
    expect(await again.readBinary("0.2.0", "riscv")).toBeUndefined();
    expect(await again.deleteRelease("0.2.0")).toBe(2);
    expect(await again.binaries()).toEqual([]);
    expect(await again.readBinary("0.2.0", "x64")).toBeUndefined();
    await again.close();
  });

  it("keeps rollouts per tenant with their targets; state changes are compare-and-set", async () => {
    const s = place()();
    expect(await s.insertRollout(rollout("t1", "r1", ["b", "a", "c"]))).toBe(true);
    expect(await s.insertRollout(rollout("t1", "r1", ["x"]))).toBe(false);
    expect(await s.insertRollout(rollout("t2", "r1", ["x"]))).toBe(true);
    const r = (await s.rollout("t1", "r1"))!;
    expect(r.targets.map((t) => t.feed)).toEqual(["a", "b", "c"]);
    expect(r.selector).toEqual({ tags: { site: "paris" } });
    expect(r.batches).toEqual([50, 100]);
    expect(r.force).toBe(false);
    expect((await s.rollouts("t2")).map((x) => x.targets.length)).toEqual([1]);
    expect(await s.rollout("t3", "r1")).toBeUndefined();

    expect(await s.updateRollout("t1", "r1", 0, { state: "paused", batch: 0, reason: "b failed" }, 5)).toBe(true);
    // Another collector's change meanwhile: the stale revision loses.
    expect(await s.updateRollout("t1", "r1", 0, { state: "running", batch: 1 }, 6)).toBe(false);
    const paused = (await s.rollout("t1", "r1"))!;
    expect([paused.state, paused.reason, paused.revision, paused.updatedAt]).toEqual(["paused", "b failed", 1, 5]);
    expect((await s.activeRollouts()).map((x) => `${x.tenant}/${x.id}/${x.state}`)).toEqual(["t1/r1/paused", "t2/r1/running"]);
    expect(await s.updateRollout("t2", "r1", 0, { state: "completed", batch: 1 }, 7)).toBe(true);
    expect((await s.activeRollouts()).map((x) => x.tenant)).toEqual(["t1"]);
    await s.close();
  });

  it("never takes a target out of a final state", async () => {
    const s = place()();
    await s.insertRollout(rollout("t1", "r1", ["a", "b"]));
    expect(await s.updateTarget("t1", "r1", "a", { state: "failed", reason: "exited with code 3", at: 9 })).toBe(true);
    expect(await s.updateTarget("t1", "r1", "a", { state: "succeeded", at: 10 })).toBe(false);
    expect(await s.updateTarget("t1", "r1", "b", { state: "ordered", at: 10 })).toBe(true);
    expect(await s.updateTarget("t1", "r1", "zz", { state: "ordered", at: 10 })).toBe(false);
    const t = (await s.rollout("t1", "r1"))!.targets;
    expect(t).toEqual([
      { feed: "a", batch: 0, state: "failed", from: "0.1.0", reason: "exited with code 3", at: 9 },
      { feed: "b", batch: 1, state: "ordered", from: "0.1.0", at: 10 },
    ]);
    await s.close();
  });

  it("keeps each feed's latest report, and its last upgrade when a status carries none", async () => {
    const s = place()();
    const upgrade = { state: "installed" as const, version: "0.2.0", rollout: "r1", at: 3 };
    await s.saveReport({ tenant: "t1", feed: "a", version: "0.2.0", arch: "x64", upgrade, at: 5 });
    await s.saveReport({ tenant: "t1", feed: "b", tags: { site: "paris" }, at: 6 });
    await s.saveReport({ tenant: "t2", feed: "a", version: "0.1.0", at: 6 });
    await s.saveReport({ tenant: "t1", feed: "a", version: "0.2.0", arch: "x64", at: 7 });
    expect(await s.reports("t1")).toEqual([
      { tenant: "t1", feed: "a", version: "0.2.0", arch: "x64", upgrade, at: 7 },
      { tenant: "t1", feed: "b", tags: { site: "paris" }, at: 6 },
    ]);
    expect((await s.reports("t2")).map((r) => r.version)).toEqual(["0.1.0"]);
    await s.close();
  });
});
