import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PointBuffer } from "../../agent/buffer/point-buffer.ts";
import type { MetricWrite } from "../../src/metrics/model.ts";
import { createDecoder, createEncoder } from "../../src/protocol/cbor.ts";
import { CHUNK_FORMAT, decodeSeriesChunk } from "../../src/protocol/series-chunk.ts";
import { openDatabase } from "../../src/sqlite/open.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Runs the child until it has started its `compactions`-th compaction, then SIGKILLs it; returns the last committed point number. */
async function runAndKill(path: string, first: number, compactions: number): Promise<{ committed: number; midCompaction: boolean }> {
  const child = Bun.spawn([process.execPath, "test/agent/compaction-kill-child.ts", path, String(first)], { stdout: "pipe", stderr: "inherit" });
  let committed = first;
  let started = 0;
  let last = "";
  let text = "";
  const reader = child.stdout.getReader();
  const decoder = new TextDecoder();
  outer: for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the child exited early (${await child.exited})`);
    text += decoder.decode(value);
    let nl = text.indexOf("\n");
    while (nl >= 0) {
      const line = text.slice(0, nl);
      text = text.slice(nl + 1);
      nl = text.indexOf("\n");
      last = line;
      if (line.startsWith("committed ")) committed = Number(line.slice(10));
      if (line === "compacting" && ++started === compactions) break outer;
    }
  }
  // Killed right after it said it started compacting (a compaction of a full row takes milliseconds).
  child.kill("SIGKILL");
  await child.exited;
  // It was killed inside compact() when it never said that compact() returned.
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value);
  }
  return { committed, midCompaction: last === "compacting" && !text.includes("compacted") };
}

function contents(path: string): { points: number[]; depth: number } {
  const b = new PointBuffer(openDatabase(path), { tenant: "t", feed: "f" }, { maxBytes: 1e12, maxAgeMs: 1e12, chunkPoints: 1000 }, createEncoder(), {});
  const dec = createDecoder();
  const span = b.read(0, Number.MAX_SAFE_INTEGER, 1e12);
  const points: number[] = [];
  span?.bodies.forEach((body, i) => {
    const writes = span.formats[i] === CHUNK_FORMAT.series ? decodeSeriesChunk(dec, body) : (dec.decode(body) as MetricWrite[]);
    for (const w of writes) for (const p of w.points) if (w.id === "s7") points.push(p.timestamp);
  });
  const depth = b.depth.points;
  b.close();
  return { points: points.sort((a, c) => a - c), depth };
}

describe("agent buffer compaction and SIGKILL", () => {
  it("loses nothing and duplicates nothing when the process is killed in the middle of compactions", async () => {
    const d = mkdtempSync(join(tmpdir(), "outpost-compact-kill-"));
    dirs.push(d);
    const path = join(d, "buffer.db");
    let first = 0;
    let mid = 0;
    for (const compactions of [60, 90, 75]) {
      const { committed, midCompaction } = await runAndKill(path, first, compactions);
      if (midCompaction) mid++;
      const { points, depth } = contents(path);
      // Every point committed before the kill is there once; points after it only if their commit made it, in order.
      expect(points.length).toBeGreaterThanOrEqual(committed);
      expect(points.length % 100).toBe(0);
      expect(points).toEqual(Array.from({ length: points.length }, (_, i) => i));
      expect(depth).toBe(points.length * 20);
      first = points.length;
    }
    expect(mid).toBeGreaterThanOrEqual(2);
  }, 120_000);
});
