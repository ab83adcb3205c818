import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BufferIdentityError, type BufferLimits, type DropReason, PointBuffer } from "../../agent/buffer/point-buffer.ts";
import type { MetricWrite } from "../../src/metrics/model.ts";
import { createDecoder, createEncoder } from "../../src/protocol/cbor.ts";
import { openDatabase } from "../../src/sqlite/open.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDb() {
  const d = mkdtempSync(join(tmpdir(), "outpost-buffer-"));
  dirs.push(d);
  return join(d, "buffer.db");
}

const gauge = (id: string, from: number, n: number): MetricWrite => ({ type: "gauge", id, points: Array.from({ length: n }, (_, i) => ({ timestamp: from + i, value: i })) });

function open(path: string, limits: Partial<BufferLimits> = {}, now = () => 1_000_000, identity = { tenant: "t", feed: "f" }) {
  const drops: [DropReason, number][] = [];
  let appended = 0;
  const b = new PointBuffer(
    openDatabase(path),
    identity,
    { maxBytes: 1e9, maxAgeMs: 3_600_000, chunkPoints: 100, ...limits },
    createEncoder(),
    { dropped: (r, p) => drops.push([r, p]), appended: () => appended++ },
    now,
    1,
  );
  return { b, drops, appended: () => appended };
}

const dec = createDecoder();
const pointsOf = (bodies: Uint8Array[]) => bodies.flatMap((body) => (dec.decode(body) as MetricWrite[]).flatMap((w) => w.points.map((p) => `${w.id}@${p.timestamp}`)));

describe("agent buffer", () => {
  it("commits grouped appends, splits them into chunks, and keeps them across a reopen", async () => {
    const path = tempDb();
    const { b, appended } = open(path);
    await Promise.all([b.append([gauge("a", 0, 150)]), b.append([gauge("b", 0, 30)]), b.append([])]);
    expect(appended()).toBe(1);
    expect(b.depth.points).toBe(180);
    const first = b.read(0, Number.MAX_SAFE_INTEGER, 100)!;
    expect(first.points).toBe(100);
    const rest = b.read(first.hi, Number.MAX_SAFE_INTEGER, 1000)!;
    expect(rest.points).toBe(80);
    expect(pointsOf([...first.bodies, ...rest.bodies])).toEqual([...Array.from({ length: 150 }, (_, i) => `a@${i}`), ...Array.from({ length: 30 }, (_, i) => `b@${i}`)]);
    expect(b.session).toBe(1);
    b.close();

    const again = open(path).b;
    expect(again.session).toBe(2);
    expect(again.depth).toEqual(b.depth);
    again.close();
  });

  it("removes acknowledged spans and never reuses chunk ids", async () => {
    const { b } = open(tempDb());
    await b.append([gauge("a", 0, 10)]);
    const s = b.read(0, Number.MAX_SAFE_INTEGER, 100)!;
    b.remove(s.lo, s.hi);
    await b.append([gauge("a", 10, 10)]);
    expect(b.depth.points).toBe(10);
    expect(b.maxId()).toBeGreaterThan(s.hi);
    expect(b.span(s.lo, s.hi)).toBeUndefined();
    b.close();
  });

  it("refuses a buffer written for another tenant or feed", () => {
    const path = tempDb();
    open(path).b.close();
    expect(() => open(path, {}, undefined, { tenant: "other", feed: "f" })).toThrow(BufferIdentityError);
  });

  it("drops the oldest chunks beyond the size limit and counts them", async () => {
    const { b, drops } = open(tempDb(), { maxBytes: 4000, chunkPoints: 50 });
    for (let i = 0; i < 10; i++) await b.append([gauge("a", i * 50, 50)]);
    expect(b.depth.bytes).toBeLessThanOrEqual(4000);
    const dropped = drops.reduce((s, [r, p]) => (r === "size" ? s + p : s), 0);
    expect(dropped).toBeGreaterThan(0);
    expect(dropped + b.depth.points).toBe(500);
    const all = pointsOf(b.read(0, Number.MAX_SAFE_INTEGER, 10_000)!.bodies);
    expect(all.at(-1)).toBe("a@499");
    expect(all[0]).toBe(`a@${dropped}`);
    b.close();
  });

  it("drops chunks older than the age limit", async () => {
    let now = 0;
    const { b, drops } = open(tempDb(), { maxAgeMs: 1000 }, () => now);
    await b.append([gauge("old", 0, 5)]);
    now = 600;
    await b.append([gauge("young", 0, 7)]);
    now = 1500;
    b.expire();
    expect(drops).toEqual([["age", 5]]);
    expect(b.depth.points).toBe(7);
    expect(b.oldestBufferedAt()).toBe(600);
    b.close();
  });
});
