/**
 * A collector killed (SIGKILL) in the middle of rolling up recomputes nothing twice and misses
 * nothing: after several kills at random points of a catch-up, and a restart that finishes it,
 * the tiers hold, row for row, those of a catch-up that was never interrupted (bit for bit once
 * each block is written whole: the segments a block is kept in follow the steps that wrote it).
 */
import { Database } from "bun:sqlite";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openSqliteMetricsStore } from "../../../collector/store/metrics/sqlite/store.ts";
import { DAY_MS } from "../../../src/metrics/model.ts";
import { encodeRows } from "../../../src/metrics/rollup/block.ts";
import { decodeRows } from "../../../src/metrics/rollup/block-segments.ts";
import { DEFAULT_ROLLUP_TIERS, parseRollupTiers } from "../../../src/metrics/rollup/tiers.ts";

const dir = mkdtempSync(join(tmpdir(), "outpost-rollup-kill-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const TIERS = parseRollupTiers(DEFAULT_ROLLUP_TIERS);
const T0 = Math.floor(Date.now() / DAY_MS) * DAY_MS - 30 * DAY_MS;

/** Every block (series, tier, start, its rows encoded whole) and every tier's mark. */
function tiers(d: string): { blocks: string[]; marks: unknown[] } {
  const db = new Database(join(d, "metrics.db"), { readonly: true });
  try {
    const rows = db.query("SELECT sid, step, block_start, body FROM rollups ORDER BY sid, step, block_start").all() as { sid: number; step: number; block_start: number; body: Uint8Array }[];
    const blocks = rows.map((r) => `${r.sid}:${r.step}:${r.block_start}:${Buffer.from(encodeRows(decodeRows(r.body, r.block_start, r.step), r.block_start, r.step)).toString("hex")}`);
    return { blocks, marks: db.query("SELECT step, mark FROM rollup_progress ORDER BY step").all() };
  } finally {
    db.close();
  }
}

async function rollUp(d: string): Promise<void> {
  const s = await openSqliteMetricsStore({ dataDir: d, synchronous: "NORMAL", maintenanceIntervalMs: 3_600_000, rollupTiers: TIERS });
  s.rollUp();
  await s.close();
}

/** Starts the child on `d` and kills it after it has begun its `n`-th batch. */
async function killAfter(d: string, n: number): Promise<void> {
  const child = Bun.spawn([process.execPath, "test/collector/store/rollup-kill-child.ts", d], { stdout: "pipe", stderr: "inherit" });
  const reader = child.stdout.getReader();
  const decoder = new TextDecoder();
  let seen = 0;
  let text = "";
  while (seen < n) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the child exited early (${await child.exited})`);
    text += decoder.decode(value);
    seen = text.split("\n").filter((l) => l === "rolling").length;
  }
  child.kill("SIGKILL");
  await child.exited;
}

describe("rolling up through kill -9", () => {
  it("ends with the tiers of an uninterrupted catch-up", async () => {
    const source = join(dir, "source");
    // 12 series × 20 days of a point a minute, sealed, none rolled up yet.
    const s = await openSqliteMetricsStore({ dataDir: source, synchronous: "NORMAL", maintenanceIntervalMs: 3_600_000 });
    for (let k = 0; k < 12; k++) {
      const points = Array.from({ length: 20 * 1440 }, (_, i) => ({ timestamp: T0 + i * 60_000, value: ((i * (k + 7)) % 113) / 3 }));
      await s.write("t", [{ type: k % 3 === 0 ? "counter" : "gauge", id: `m${k}`, points: k % 3 === 0 ? points.map((p, i) => ({ ...p, value: i })) : points }]);
    }
    s.flushDue(true);
    await s.close();
    const reference = join(dir, "reference");
    const killed = join(dir, "killed");
    cpSync(source, reference, { recursive: true });
    cpSync(source, killed, { recursive: true });
    await rollUp(reference);
    const want = tiers(reference);
    expect(want.blocks.length).toBeGreaterThan(100);

    for (const n of [2, 7, 15, 31]) await killAfter(killed, n + Math.floor(Math.random() * 5));
    const partial = tiers(killed);
    // Killed part-way: some blocks written, not all.
    expect(partial.blocks.length).toBeGreaterThan(0);
    expect(partial.blocks.length).toBeLessThan(want.blocks.length + 1);
    await rollUp(killed);
    expect(tiers(killed)).toEqual(want);
  }, 120_000);
});
