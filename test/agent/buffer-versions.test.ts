/**
 * The agent's buffer across an upgrade and its rollback (docs/fleet.md, "Upgrades"): a newer
 * agent's additive schema steps leave the buffer to the older agent, which reads and forwards
 * every point in it; the newer one reads what the older wrote. A step an older agent could not
 * ignore is refused in one line, never misread.
 */
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PointBuffer } from "../../agent/buffer/point-buffer.ts";
import { bufferSchema } from "../../agent/buffer/schema.ts";
import type { MetricWrite } from "../../src/metrics/model.ts";
import { createDecoder, createEncoder } from "../../src/protocol/cbor.ts";
import { latestVersion, migrate, schemaVersion } from "../../src/sqlite/migrations.ts";
import { openDatabase } from "../../src/sqlite/open.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const dec = createDecoder();
const gauge = (id: string, from: number, n: number): MetricWrite => ({ type: "gauge", id, points: Array.from({ length: n }, (_, i) => ({ timestamp: from + i, value: i })) });
const open = (path: string) => new PointBuffer(openDatabase(path), { tenant: "t", feed: "f" }, { maxBytes: 1e9, maxAgeMs: 3_600_000, chunkPoints: 100 }, createEncoder(), {}, () => 1_000_000, 1);

function pointsIn(b: PointBuffer): string[] {
  const out: string[] = [];
  for (let after = 0; ; ) {
    const s = b.read(after, Number.MAX_SAFE_INTEGER, 1000);
    if (!s) return out;
    for (const body of s.bodies) for (const w of dec.decode(body) as MetricWrite[]) for (const p of w.points) out.push(`${w.id}@${p.timestamp}`);
    after = s.hi;
  }
}

/** What a newer agent's schema could add: a step this agent never heard of. */
function newerSchema(additive: boolean) {
  const now = bufferSchema("buffer.db");
  const v = latestVersion(now) + 1;
  return { ...now, migrations: [...now.migrations, { version: v, description: "a newer agent's step", additive, up: (db: Database) => db.exec("ALTER TABLE chunks ADD COLUMN origin TEXT") }] };
}

describe("the buffer between agent versions", () => {
  it("a newer agent's buffer is read by this agent, every point, and this agent's by the newer", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "outpost-bufver-")), "buffer.db");
    dirs.push(join(path, ".."));
    const mine = open(path);
    await mine.append([gauge("old", 0, 150)]);
    mine.close();
    // The newer agent opens it (its step runs), and buffers more.
    const db = new Database(path);
    migrate(db, newerSchema(true));
    db.close();
    const newer = open(path);
    await newer.append([gauge("new", 0, 50)]);
    newer.close();
    expect(schemaVersion(new Database(path, { readonly: true }))).toBe(latestVersion(bufferSchema("b")) + 1);
    // Rolled back: this agent opens the newer buffer and finds everything in order.
    const back = open(path);
    expect(pointsIn(back)).toEqual([...Array.from({ length: 150 }, (_, i) => `old@${i}`), ...Array.from({ length: 50 }, (_, i) => `new@${i}`)]);
    await back.append([gauge("after", 0, 5)]);
    expect(back.depth.points).toBe(205);
    back.close();
  });

  it("a buffer whose newer step this agent cannot ignore is refused, not misread", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "outpost-bufver-")), "buffer.db");
    dirs.push(join(path, ".."));
    open(path).close();
    const db = new Database(path);
    migrate(db, newerSchema(false));
    db.close();
    expect(() => open(path)).toThrow(/buffer\.db has schema version \d+, newer than this program knows \(\d+; it needs one that knows \d+\)/);
  });
});
