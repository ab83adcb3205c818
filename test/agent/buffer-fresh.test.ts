import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PointBuffer } from "../../agent/buffer/point-buffer.ts";
import { Forwarder } from "../../agent/forward/forwarder.ts";
import { SendPlanner } from "../../agent/forward/send-planner.ts";
import { createAgentTelemetry } from "../../agent/telemetry.ts";
import { createLogger } from "../../src/log/logger.ts";
import type { MetricWrite } from "../../src/metrics/model.ts";
import { createDecoder, createEncoder } from "../../src/protocol/cbor.ts";
import { decodeData, encodeAck } from "../../src/protocol/messages.ts";
import { openDatabase } from "../../src/sqlite/open.ts";

/**
 * Fresh chunks sent from memory (agent/buffer/fresh-rows.ts): the same bytes as their rows, only
 * after the commit, and every later read (a resend, a restart, rows changed) from SQLite.
 */
const enc = createEncoder();
const dec = createDecoder();
const dirs: string[] = [];
const closers: (() => void)[] = [];
afterEach(() => {
  for (const c of closers.splice(0)) c();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDb(): string {
  const d = mkdtempSync(join(tmpdir(), "outpost-fresh-"));
  dirs.push(d);
  return join(d, "buffer.db");
}

/** A scrape's worth of gauges, one point each: chunks of 2,000 points are about 330 KB (buffers of their own). */
const scrape = (stamp: number, series = 4000): MetricWrite[] =>
  Array.from({ length: series }, (_, i) => ({ type: "gauge", id: `synthetic_requests_total{code="200",feed="web-1",instance="127.0.0.1:9100",instance_id="${i}",job="synthetic",route="/api/v1/r${i % 100}",service="svc-${i % 50}"}`, points: [{ timestamp: stamp, value: i + stamp / 1000 }] }));

function openBuffer(path: string, now: () => number, limits: { maxBytes?: number } = {}) {
  const db = openDatabase(path);
  const b = new PointBuffer(db, { tenant: "t", feed: "f" }, { maxBytes: limits.maxBytes ?? 1e9, maxAgeMs: 1e9, chunkPoints: 2000 }, enc, {}, now, 1);
  return { b, db };
}

/** Every row's body as stored, in id order. */
const rows = (path: string) => {
  const db = openDatabase(path, { readonly: true });
  try {
    return db.query<{ id: number; body: Uint8Array }, []>("SELECT id, body FROM chunks ORDER BY id").all();
  } finally {
    db.close();
  }
};

describe("fresh chunks sent from memory", () => {
  it("hands the send path a just-committed chunk from memory, the same bytes as its row", async () => {
    const path = tempDb();
    const { b } = openBuffer(path, () => 1_000_000);
    closers.push(() => b.close());
    await b.append(scrape(1_000_000));
    const stored = rows(path);
    expect(stored).toHaveLength(2);
    const first = b.read(0, Number.MAX_SAFE_INTEGER, 2000)!;
    const second = b.read(first.hi, Number.MAX_SAFE_INTEGER, 2000)!;
    expect(b.fresh.taken).toBe(2);
    expect([first.lo, second.lo]).toEqual(stored.map((r) => r.id));
    expect(Buffer.compare(first.bodies[0]!, stored[0]!.body)).toBe(0);
    expect(Buffer.compare(second.bodies[0]!, stored[1]!.body)).toBe(0);
    expect(first.points + second.points).toBe(4000);
    // A second read of the same rows (a resend) comes from SQLite.
    const again = b.span(first.lo, first.hi)!;
    expect(Buffer.compare(again.bodies[0]!, stored[0]!.body)).toBe(0);
    expect(b.fresh.size).toBe(0);
  });

  it("reads from SQLite once rows may have changed: a compaction, a drop at the size limit", async () => {
    let now = 1_000_000;
    const path = tempDb();
    const { b } = openBuffer(path, () => now);
    closers.push(() => b.close());
    await b.append(scrape(now));
    expect(b.fresh.size).toBe(2);
    now += 120_000;
    b.compact(dec, { minAgeMs: 60_000, windowMs: 3_600_000, maxPoints: 100_000, maxBytes: 10_000_000, maxPointsPerCall: 100_000 });
    expect(b.fresh.size).toBe(0);
    const span = b.read(0, Number.MAX_SAFE_INTEGER, 100_000)!;
    expect(b.fresh.taken).toBe(0);
    expect(span.points).toBe(4000);

    now += 10_000;
    const small = openBuffer(tempDb(), () => now, { maxBytes: 1_000_000 });
    closers.push(() => small.b.close());
    await small.b.append(scrape(now));
    // Two chunks of about 330 KB fit in 1 MB; the next scrape's drop the oldest rows.
    await small.b.append(scrape(now + 10_000));
    expect(small.b.fresh.size).toBe(0);
    const left = small.b.read(0, Number.MAX_SAFE_INTEGER, 2000)!;
    expect(small.b.fresh.taken).toBe(0);
    expect(left.points).toBe(2000);
  });

  it("a batch sent from memory and lost with the link is resent from its row, and removed only when acked", async () => {
    let now = 1_000_000;
    const buffer = new PointBuffer(openDatabase(":memory:"), { tenant: "t", feed: "f" }, { maxBytes: 1e9, maxAgeMs: 1e9, chunkPoints: 2000 }, enc, {}, () => now, 1);
    const planner = new SendPlanner(buffer, { batchPoints: 2000, replayRate: 0, freshAgeMs: 60_000 }, () => now);
    const sent: { seq: number; chunk: Uint8Array }[] = [];
    const link = {
      ready: true,
      fail: false,
      async publish(_topic: string, payload: Uint8Array) {
        if (this.fail) throw new Error("connection lost");
        const d = dec.decode(payload) as { seq: number; chunks: Uint8Array[] };
        sent.push({ seq: d.seq, chunk: Uint8Array.from(d.chunks[0]!) });
        expect(decodeData(dec, payload).points).toBe(2000);
      },
    };
    const { counters } = createAgentTelemetry();
    const fw = new Forwarder(buffer, planner, link, enc, dec, { dataTopic: "svc/t/f/data", window: 8, ackTimeoutMs: 1000 }, counters, createLogger("silent"), () => now);
    closers.push(() => {
      fw.close();
      buffer.close();
    });
    link.fail = true;
    await buffer.append(scrape(now));
    fw.pump();
    await new Promise((r) => setTimeout(r, 5));
    expect(buffer.fresh.taken).toBe(2);
    // The broker never took them: sent again, from the rows, once the link is back.
    link.fail = false;
    now += 10;
    fw.linkReady();
    await new Promise((r) => setTimeout(r, 5));
    expect(sent.map((s) => s.seq)).toEqual([1, 2]);
    expect(buffer.fresh.taken).toBe(2);
    const all = [...sent];
    // Not acked in time (twice the timeout for a second attempt): resent again, the same bytes.
    now += 2000;
    fw.pump();
    await new Promise((r) => setTimeout(r, 5));
    expect(sent.map((s) => s.seq)).toEqual([1, 2, 1, 2]);
    expect(Buffer.compare(sent[2]!.chunk, all[0]!.chunk)).toBe(0);
    expect(buffer.depth.points).toBe(4000);
    fw.onAck(encodeAck(enc, { session: buffer.session, seqs: [1, 2] }));
    buffer.flush();
    expect(buffer.depth.points).toBe(0);
    expect(counters.pointsAcked.value).toBe(4000);
  });

  it("a chunk sent from memory was committed first: after kill -9 the next run finds its row and sends it", async () => {
    const path = tempDb();
    const first = openBuffer(path, () => 1_000_000);
    await first.b.append(scrape(1_000_000));
    const inMemory = first.b.read(0, Number.MAX_SAFE_INTEGER, 2000)!;
    expect(first.b.fresh.taken).toBe(1);
    const bytes = Uint8Array.from(inMemory.bodies[0]!);
    // Killed without closing: the next run opens the same file while this one still has it open.
    const next = openBuffer(path, () => 1_000_100);
    closers.push(() => {
      next.b.close();
      first.db.close();
    });
    const again = next.b.read(0, Number.MAX_SAFE_INTEGER, 2000)!;
    expect(next.b.fresh.taken).toBe(0);
    expect(again.lo).toBe(inMemory.lo);
    expect(Buffer.compare(again.bodies[0]!, bytes)).toBe(0);
    expect(next.b.depth.points).toBe(4000);
  });
});
