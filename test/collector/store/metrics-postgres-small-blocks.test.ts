import { SQL } from "bun";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeSmallBlock, encodeSmallBlock, isSmallBlock, SMALL_MARK, SMALL_MAX } from "../../../collector/store/metrics/postgres/small-block.ts";
import { PostgresMetricsStore } from "../../../collector/store/metrics/postgres/store.ts";
import { encodePoints, PointCodecError } from "../../../src/codec/index.ts";
import type { MetricType } from "../../../src/metrics/model.ts";
import { CorruptDataError } from "../../../src/sqlite/corrupt-data.ts";
import { metricsTestDatabase } from "../../helpers/postgres.ts";

/**
 * Small numeric blocks stored raw in metric_blocks (small-block.ts): every float64 kept bit for
 * bit (NaN, ±Infinity, -0), a damaged one refused, and reads and seals of series mixing raw
 * blocks, codec blocks, strings and tags answering exactly what was written.
 */
const { db, cleanups } = metricsTestDatabase();

const NOW = Date.now();
const all = { start: 0, end: Number.MAX_SAFE_INTEGER, order: "asc" as const };
const special = fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0, 0, Number.MIN_VALUE, Number.MAX_VALUE);
const anyDouble = fc.oneof(fc.double(), special);
const same = (a: ArrayLike<number>, b: ArrayLike<number>) => a.length === b.length && Array.from(a).every((x, i) => Object.is(x, b[i]));

describe("raw small blocks", () => {
  it("round-trip any 1 to SMALL_MAX float64 timestamps and values exactly", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(anyDouble, anyDouble), { minLength: 1, maxLength: SMALL_MAX }), (pts) => {
        const ts = pts.map((p) => p[0]);
        const nums = pts.map((p) => p[1]);
        const b = encodeSmallBlock(ts, nums);
        expect(b.length).toBe(6 + 16 * pts.length);
        expect(isSmallBlock(b)).toBe(true);
        const d = decodeSmallBlock(b);
        expect(same(d.ts, ts)).toBe(true);
        expect(same(d.nums, nums)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it("refuses a block with any byte changed, truncated or extended", () => {
    fc.assert(
      fc.property(fc.array(anyDouble, { minLength: 1, maxLength: SMALL_MAX }), fc.nat(), fc.integer({ min: 1, max: 255 }), (vals, at, x) => {
        const b = encodeSmallBlock(vals, vals);
        const bad = b.slice();
        bad[at % b.length]! ^= x;
        expect(() => decodeSmallBlock(bad)).toThrow(PointCodecError);
        expect(() => decodeSmallBlock(b.subarray(0, b.length - 1))).toThrow(PointCodecError);
        expect(() => decodeSmallBlock(Uint8Array.from([...b, 0]))).toThrow(PointCodecError);
      }),
      { numRuns: 300 },
    );
  });

  it("is never taken for a codec block, and refuses counts it does not hold", () => {
    expect(isSmallBlock(encodePoints({ ts: Float64Array.of(1), nums: Float64Array.of(2) }))).toBe(false);
    expect(isSmallBlock(encodePoints({ ts: Float64Array.of(1), strs: ["x"] }))).toBe(false);
    expect(() => encodeSmallBlock([], [])).toThrow(TypeError);
    expect(() => encodeSmallBlock(new Array(SMALL_MAX + 1).fill(1), new Array(SMALL_MAX + 1).fill(1))).toThrow(TypeError);
    expect(() => decodeSmallBlock(Uint8Array.of(SMALL_MARK, 0, 0, 0, 0, 0))).toThrow(PointCodecError);
  });
});

async function store() {
  const sql = new SQL(db.url, { max: 2 });
  const s = new PostgresMetricsStore({ sql, maintenanceIntervalMs: 3_600_000 });
  await s.open();
  cleanups.push(async () => {
    await s.close();
    await sql.close({ timeout: 1 });
  });
  return s;
}

const marks = async () => ((await db.sql.unsafe("SELECT get_byte(body, 0) AS m FROM metric_blocks ORDER BY bid")) as { m: number }[]).map((r) => r.m);

describe("PostgreSQL metrics store with raw small blocks", () => {
  it("stores untagged numeric writes of a few points raw, the rest as codec blocks, and reads every value back exactly", async () => {
    const s = await store();
    await s.write("t", [
      { type: "gauge", id: "g", points: [{ timestamp: NOW, value: -0 }] },
      { type: "counter", id: "c", points: [1, 2, 3, 4].map((i) => ({ timestamp: NOW + i, value: i === 2 ? Number.NaN : i })) },
      { type: "availability", id: "a", points: [{ timestamp: NOW, value: "down" }] },
      { type: "gauge", id: "many", points: [1, 2, 3, 4, 5].map((i) => ({ timestamp: NOW + i, value: i })) },
      { type: "gauge", id: "tagged", points: [{ timestamp: NOW, value: 1, tags: { k: "v" } }] },
      { type: "string", id: "s", points: [{ timestamp: NOW, value: "x" }] },
    ]);
    // Blocks in series order: availability a, counter c, gauge g, gauge many, gauge tagged, string s.
    expect(await marks()).toEqual([SMALL_MARK, SMALL_MARK, SMALL_MARK, 1, 1, 1]);
    await s.write("t", [{ type: "gauge", id: "g", points: [{ timestamp: NOW + 1, value: Number.NEGATIVE_INFINITY }] }]);
    const check = async () => {
      const g = await s.readRaw("t", "gauge", "g", all);
      expect(g.ts).toEqual([NOW, NOW + 1]);
      expect(Object.is(g.values[0], -0)).toBe(true);
      expect(g.values[1]).toBe(Number.NEGATIVE_INFINITY);
      // NaN is kept (a staleness marker): series reads give it, raw reads leave it out.
      expect(Array.from((await s.readSeries("t", "counter", "c", NOW, NOW + 10))!.values)).toEqual([1, Number.NaN, 3, 4]);
      expect((await s.readRaw("t", "counter", "c", all)).values).toEqual([1, 3, 4]);
      expect((await s.readRaw("t", "availability", "a", all)).values).toEqual(["down"]);
      expect((await s.readRaw("t", "gauge", "many", all)).values).toEqual([1, 2, 3, 4, 5]);
      expect(await s.readRaw("t", "gauge", "tagged", all)).toEqual({ ts: [NOW], values: [1], tags: [{ k: "v" }] });
      expect((await s.readRaw("t", "string", "s", all)).values).toEqual(["x"]);
    };
    await check();
    expect(await s.seal(true)).toBe(6);
    await check();
  });

  it("answers any sequence of small and large writes as the last write of each timestamp, before and after sealing", async () => {
    const s = await store();
    let k = 0;
    const write = fc.record({
      type: fc.constantFrom<MetricType>("gauge", "string"),
      points: fc.array(fc.record({ dt: fc.integer({ min: 0, max: 12 }), v: anyDouble }), { minLength: 1, maxLength: SMALL_MAX + 3 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(write, { minLength: 1, maxLength: 6 }), fc.integer({ min: 0, max: 5 }), async (writes, sealAfter) => {
        const id = `m${k++}`;
        const model = new Map<string, Map<number, number | string>>();
        for (const [i, w] of writes.entries()) {
          const points = w.points.map((p) => ({ timestamp: NOW + p.dt, value: w.type === "string" ? `v${p.v}` : p.v }));
          await s.write("t", [{ type: w.type, id, points }]);
          const m = model.get(w.type) ?? new Map<number, number | string>();
          for (const p of points) m.set(p.timestamp, p.value);
          model.set(w.type, m);
          if (i === sealAfter) await s.seal(true);
        }
        for (const [type, m] of model) {
          // Raw reads leave out NaN, the staleness marker (also where it replaced a value).
          const want = [...m.entries()].filter((e) => typeof e[1] === "string" || !Number.isNaN(e[1])).sort((a, b) => a[0] - b[0]);
          for (const pass of [0, 1]) {
            const got = await s.readRaw("t", type as MetricType, id, all);
            expect(got.ts).toEqual(want.map((e) => e[0]));
            if (type === "string") expect(got.values).toEqual(want.map((e) => e[1]));
            else expect(same(got.values as number[], want.map((e) => e[1]) as number[])).toBe(true);
            if (pass === 0) await s.seal(true);
          }
        }
      }),
      { numRuns: 40 },
    );
  });

  it("refuses a damaged raw block with CorruptDataError, on read and at the seal, and seals the other series", async () => {
    const s = await store();
    await s.write("t", [
      { type: "gauge", id: "bad", points: [{ timestamp: NOW, value: 1 }] },
      { type: "gauge", id: "good", points: [{ timestamp: NOW, value: 2 }] },
    ]);
    await db.sql.unsafe(
      "UPDATE metric_blocks SET body = set_byte(body, 5, get_byte(body, 5) # 1) WHERE sid = (SELECT sid FROM metric_series WHERE metric = 'bad')",
    );
    await expect(s.readRaw("t", "gauge", "bad", all)).rejects.toThrow(CorruptDataError);
    expect(await s.seal(true)).toBe(1);
    expect((await s.readRaw("t", "gauge", "good", all)).values).toEqual([2]);
    expect(await s.stats()).toMatchObject({ blocks: 1, chunks: 1 });
  });
});
