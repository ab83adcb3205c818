/**
 * The agent's local window and its reads, on a real buffer file: acknowledged rows are kept
 * (not sent again), compacted like the backlog without changing what reads answer, counted
 * inside --buffer-max-bytes with the backlog first, and gone after the window. Reads treat
 * staleness markers as the collector's store does.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_COMPACTION } from "../../../agent/buffer/compaction.ts";
import { type BufferLimits, PointBuffer } from "../../../agent/buffer/point-buffer.ts";
import { LocalHistory } from "../../../agent/history/local-history.ts";
import { readNumericStats } from "../../../src/metrics/queries.ts";
import type { MetricWrite } from "../../../src/metrics/model.ts";
import { STALE_NAN } from "../../../src/prometheus/staleness.ts";
import { createDecoder, createEncoder } from "../../../src/protocol/cbor.ts";
import { openDatabase } from "../../../src/sqlite/open.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const HOUR = 3_600_000;
const dec = createDecoder();

function open(limits: Partial<BufferLimits>, clock: { now: number }) {
  const d = mkdtempSync(join(tmpdir(), "outpost-history-"));
  dirs.push(d);
  const b = new PointBuffer(openDatabase(join(d, "buffer.db")), { tenant: "t", feed: "f" }, { maxBytes: 1e9, maxAgeMs: 30 * 24 * HOUR, chunkPoints: 1000, historyMs: 24 * HOUR, ...limits }, createEncoder(), {}, () => clock.now, 1);
  return { b, history: new LocalHistory(b.database, dec, "t", 1) };
}

const gauge = (id: string, from: number, n: number, step = 10_000, f = (i: number) => i): MetricWrite => ({
  type: "gauge",
  id,
  points: Array.from({ length: n }, (_, i) => ({ timestamp: from + i * step, value: f(i) })),
});

/** Every row sent and acknowledged, as the forwarder does on an ack. */
async function ackAll(b: PointBuffer) {
  const span = b.read(0, b.maxId(), 1e9);
  if (span) b.remove(span.lo, span.hi);
  await Bun.sleep(5);
  b.flush();
}

const raw = async (h: LocalHistory, id: string, start = 0, end = 1e15) => h.readRaw("t", "gauge", id, { start, end, order: "asc" });

describe("the local window", () => {
  it("keeps acknowledged rows for reads, never sends them again, and compacts them without changing any read", async () => {
    const clock = { now: 1_700_000_000_000 };
    const { b, history } = open({}, clock);
    const t0 = clock.now - 2 * HOUR;
    for (let k = 0; k < 12; k++) await b.append([gauge("cpu", t0 + k * 600_000, 60, 10_000, (i) => k * 100 + i), gauge("mem", t0 + k * 600_000, 60, 10_000, (i) => i / 3)]);
    await b.append([{ type: "gauge", id: "cpu", points: [{ timestamp: t0, value: -5 }] }]); // a rewrite: the later write wins
    await ackAll(b);
    expect(b.depth.points).toBe(0);
    expect(b.history.depth.points).toBe(12 * 120 + 1);
    expect(b.read(0, b.maxId(), 1e9)).toBeUndefined();

    const before = await raw(history, "cpu");
    expect(before.ts).toHaveLength(720);
    expect(before.values[0]).toBe(-5);
    const stats = () => readNumericStats(history, "t", "gauge", "cpu", { buckets: { start: t0, step: 120_000, count: 60 } });
    const statsBefore = await stats();
    const rowsBefore = b.history.depth.rows;

    clock.now += 2 * HOUR;
    b.compact(dec, { ...DEFAULT_COMPACTION, minAgeMs: 0 });
    expect(b.history.depth.rows).toBeLessThan(rowsBefore);
    expect(b.history.depth.points).toBe(12 * 120 + 1);
    expect(await raw(history, "cpu")).toEqual(before);
    expect(await stats()).toEqual(statsBefore);
    expect(await history.listSeries("t")).toEqual(
      expect.arrayContaining([{ type: "gauge", id: "cpu", minTs: t0, maxTs: t0 + 11 * 600_000 + 590_000, tags: undefined }]),
    );
    b.close();
  });

  it("counts inside --buffer-max-bytes with the backlog first, and forgets rows after the window", async () => {
    const clock = { now: 1_700_000_000_000 };
    const { b, history } = open({ maxBytes: 24_000, historyMs: HOUR }, clock);
    for (let k = 0; k < 10; k++) await b.append([gauge("old", clock.now - HOUR + k * 10_000, 100)]);
    await ackAll(b);
    const kept = b.history.depth.bytes;
    expect(kept).toBeGreaterThan(12_000);
    // The backlog pushes the window out, oldest first, before any of its own rows go.
    for (let k = 0; k < 10; k++) await b.append([gauge("new", clock.now + k * 10_000, 100)]);
    expect(b.depth.points).toBe(1000);
    expect(b.depth.bytes + b.history.depth.bytes).toBeLessThanOrEqual(24_000);
    expect(b.history.depth.bytes).toBeLessThan(kept);
    const left = await raw(history, "old");
    expect(left.ts.length).toBeGreaterThan(0);
    expect(left.ts.length).toBeLessThan(1000);
    // The newest of the window stay.
    expect(left.ts.at(-1)).toBe(clock.now - HOUR + 9 * 10_000 + 99 * 10_000);

    clock.now += HOUR + 1;
    b.expire();
    expect(b.history.depth.points).toBe(0);
    expect((await raw(history, "old")).ts).toEqual([]);
    expect(b.depth.points).toBe(1000);
    b.close();
  });

  it("with window 0 acknowledged rows are deleted at once", async () => {
    const clock = { now: 1_700_000_000_000 };
    const { b } = open({ historyMs: 0 }, clock);
    await b.append([gauge("x", clock.now, 10)]);
    await ackAll(b);
    expect(b.history.depth.points).toBe(0);
    expect(b.depth.points).toBe(0);
    b.close();
  });

  it("reads staleness markers as the collector does: not points of raw reads, kept for PromQL", async () => {
    const clock = { now: 1_700_000_000_000 };
    const { b, history } = open({}, clock);
    await b.append([{ type: "gauge", id: "scraped", points: [{ timestamp: 1000, value: 1 }, { timestamp: 2000, value: STALE_NAN }, { timestamp: 3000, value: 3 }] }]);
    await ackAll(b);
    clock.now += HOUR;
    b.compact(dec, { ...DEFAULT_COMPACTION, minAgeMs: 0 });
    expect(await raw(history, "scraped")).toEqual({ ts: [1000, 3000], values: [1, 3] });
    const s = await history.readSeries("t", "gauge", "scraped", 0, 10_000);
    expect([...s!.ts]).toEqual([1000, 2000, 3000]);
    expect(Number.isNaN(s!.values[1])).toBe(true);
    b.close();
  });
});
