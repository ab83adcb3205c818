/**
 * The steps of a roller round commit as one transaction. When that transaction fails (a full
 * disk, here a trigger refusing a series' mark part-way through a round), none of the round's
 * blocks or marks stay, the roller takes its state again from what is stored, and once writes
 * succeed again the tiers end exactly as those of a roll-up that never failed.
 */
import type { Database } from "bun:sqlite";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openSqliteMetricsStore } from "../../../collector/store/metrics/sqlite/store.ts";
import { DAY_MS } from "../../../src/metrics/model.ts";
import { DEFAULT_ROLLUP_TIERS, parseRollupTiers } from "../../../src/metrics/rollup/tiers.ts";

const dir = mkdtempSync(join(tmpdir(), "outpost-rollup-failure-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const TIERS = parseRollupTiers(DEFAULT_ROLLUP_TIERS);
const T0 = Math.floor(Date.now() / DAY_MS) * DAY_MS - 30 * DAY_MS;

interface Inside {
  s: { db: Database; rollups: { round(budgetMs: number, force: boolean): boolean } };
}

/** Every block (series, tier, start, bytes), every tier's mark and every series' mark. */
function tiers(db: Database): { blocks: string[]; marks: unknown[]; series: unknown[] } {
  const blocks = (db.query("SELECT sid, step, block_start, hex(body) AS b FROM rollups ORDER BY sid, step, block_start").all() as { sid: number; step: number; block_start: number; b: string }[]).map(
    (r) => `${r.sid}:${r.step}:${r.block_start}:${r.b}`,
  );
  return { blocks, marks: db.query("SELECT step, mark FROM rollup_progress ORDER BY step").all(), series: db.query("SELECT sid, mark FROM rollup_series_marks ORDER BY sid").all() };
}

async function open(d: string) {
  return openSqliteMetricsStore({ dataDir: d, synchronous: "NORMAL", maintenanceIntervalMs: 3_600_000, rollupTiers: TIERS, rollupBatchPoints: 3000 });
}

describe("a roller round whose commit fails", () => {
  it("leaves nothing of the round, and the tiers end as if it had not failed", async () => {
    const source = join(dir, "source");
    // 8 series × 10 days of a point a minute, sealed, none rolled up yet.
    const w = await openSqliteMetricsStore({ dataDir: source, synchronous: "NORMAL", maintenanceIntervalMs: 3_600_000 });
    for (let k = 0; k < 8; k++) {
      const points = Array.from({ length: 10 * 1440 }, (_, i) => ({ timestamp: T0 + i * 60_000, value: k % 2 === 0 ? i * (k + 1) : ((i * (k + 7)) % 113) / 3 }));
      await w.write("t", [{ type: k % 2 === 0 ? "counter" : "gauge", id: `m${k}`, points }]);
    }
    w.flushDue(true);
    await w.close();
    const reference = join(dir, "reference");
    cpSync(source, reference, { recursive: true });
    const r = await open(reference);
    r.rollUp();
    const want = tiers((r as unknown as Inside).s.db);
    await r.close();
    expect(want.blocks.length).toBeGreaterThan(50);

    const s = await open(source);
    const inside = (s as unknown as Inside).s;
    // A few steps committed (a round of at least one step), then a round that fails part-way.
    inside.rollups.round(0.001, true);
    inside.rollups.round(0.001, true);
    const before = tiers(inside.db);
    expect(before.blocks.length).toBeGreaterThan(0);
    const marked = before.series.length;
    inside.db.exec(`CREATE TEMP TRIGGER refuse BEFORE INSERT ON rollup_series_marks WHEN (SELECT count(*) FROM rollup_series_marks) >= ${marked + 2} BEGIN SELECT RAISE(ABORT, 'refused'); END`);
    expect(() => inside.rollups.round(60_000, true)).toThrow(/refused/);
    // The failed round's steps (two series at least) left nothing.
    expect(tiers(inside.db)).toEqual(before);
    inside.db.exec("DROP TRIGGER refuse");
    s.rollUp();
    expect(tiers(inside.db)).toEqual(want);
    await s.close();
  }, 60_000);
});
