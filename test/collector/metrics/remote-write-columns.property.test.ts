/**
 * Remote write's fast path (src/prometheus/remote-write-columns.ts with collector/metrics/
 * foreign-writes.ts' RemoteWriteColumns) against the general path it shortens
 * (decodeWriteRequest, then writeForeignSeries): whenever the fast path takes a request, the
 * store must be asked for the same definitions and given the same points, in the same order,
 * with the same samples skipped; and it must take the usual requests, from the first time a
 * label set is seen and from the cache after.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PointsBus } from "../../../collector/events/points-bus.ts";
import { type ForeignSeries, type RemoteSeries, RemoteWriteColumns, writeForeignSeries, writeRemoteColumns } from "../../../collector/metrics/foreign-writes.ts";
import type { WriteDeps } from "../../../collector/metrics/write-points.ts";
import type { MetricsStore } from "../../../collector/store/metrics/types.ts";
import type { MetricWrite } from "../../../src/metrics/model.ts";
import { columnsToWrites, type WriteColumns } from "../../../src/metrics/write-columns.ts";
import { decodeWriteColumns, type SampleColumns } from "../../../src/prometheus/remote-write-columns.ts";
import { decodeWriteRequest } from "../../../src/prometheus/remote-write.ts";

// A protobuf writer of our own: fields in any order, repeated label names, bytes that are not UTF-8.
const varint = (n: bigint): number[] => {
  const out: number[] = [];
  let v = BigInt.asUintN(64, n);
  do {
    const b = Number(v & 0x7fn);
    v >>= 7n;
    out.push(v ? b | 0x80 : b);
  } while (v);
  return out;
};
const lenField = (key: number, bytes: number[]) => [key, ...varint(BigInt(bytes.length)), ...bytes];
const utf8 = (s: string) => Array.from(new TextEncoder().encode(s));
const double = (v: number) => Array.from(new Uint8Array(new Float64Array([v]).buffer));
/** A label (name, value) and a sample (value, timestamp) in Prometheus' own field order. */
const labelField = (n: string, v: string) => lenField(0x0a, [...lenField(0x0a, utf8(n)), ...lenField(0x12, utf8(v))]);
const sampleField = (t: number, v: number) => lenField(0x12, [0x09, ...double(v), 0x10, ...varint(BigInt(t))]);

const labelName = fc.constantFrom("__name__", "__name__", "job", "instance", "a", "b", "metric", "", "zz");
const labelValue = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom("x", "up", "node", "a/b", 'q"uote', "back\\slash", "line\nbreak", "é") },
  { weight: 1, arbitrary: fc.constantFrom("", "v".repeat(2000)) },
);
const labelBytes = fc.oneof(
  { weight: 12, arbitrary: fc.tuple(labelName, labelValue).map(([n, v]) => labelField(n, v)) },
  // Not UTF-8, a field of its own, the value first.
  { weight: 1, arbitrary: fc.constantFrom([...lenField(0x0a, [...lenField(0x0a, utf8("a")), ...lenField(0x12, [0xff, 0xfe])])], lenField(0x0a, [...lenField(0x12, utf8("v")), ...lenField(0x0a, utf8("c")), 0x18, 1])) },
);
const timestamp = fc.oneof(
  { weight: 10, arbitrary: fc.integer({ min: 1_700_000_000_000, max: 1_700_000_100_000 }).map(BigInt) },
  { weight: 1, arbitrary: fc.constantFrom(-1n, 0n, 2n ** 53n, 2n ** 62n, 253_402_300_800_000n) },
);
const value = fc.oneof(
  { weight: 10, arbitrary: fc.double() },
  { weight: 1, arbitrary: fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, -0) },
);
/** Prometheus' staleness marker, by its bits (src/prometheus/staleness.ts). */
const STALE = [0x02, 0, 0, 0, 0, 0, 0xf0, 0x7f];
const sampleBytes = fc
  .tuple(timestamp, value, fc.boolean(), fc.boolean(), fc.integer({ min: 0, max: 9 }))
  .map(([t, v, swap, omitValue, marker]) => {
    const vf = omitValue ? [] : [0x09, ...(marker === 0 ? STALE : double(v))];
    const tf = [0x10, ...varint(t)];
    return lenField(0x12, swap ? [...tf, ...vf] : [...vf, ...tf]);
  });
const seriesBytes = fc
  .tuple(
    fc.array(labelBytes, { minLength: 0, maxLength: 4 }),
    fc.array(sampleBytes, { maxLength: 4 }),
    fc.constantFrom("labels first", "labels first", "labels first", "a sample between labels", "a histogram", "an unknown field"),
  )
  .map(([labels, samples, shape]) => {
    const l = labels.flat();
    const s = samples.flat();
    if (shape === "a sample between labels" && labels.length > 1 && samples.length > 0) return lenField(0x0a, [...labels[0]!, ...samples[0]!, ...labels.slice(1).flat(), ...samples.slice(1).flat()]);
    if (shape === "a histogram") return lenField(0x0a, [...l, ...s, ...lenField(0x22, [0x08, 0x01])]);
    if (shape === "an unknown field") return lenField(0x0a, [...l, 0x28, 0x05, ...s]);
    return lenField(0x0a, [...l, ...s]);
  });
// Series from a small set of label sets, so that requests repeat them (the cache's case).
const usualSeries = fc
  .tuple(fc.constantFrom("up", "node_cpu", "http_requests_total"), fc.constantFrom("a", "b", "c"), fc.array(sampleBytes, { minLength: 1, maxLength: 3 }))
  .map(([name, inst, samples]) => lenField(0x0a, [...labelField("__name__", name), ...labelField("instance", inst), ...samples.flat()]));
const metadataBytes = fc.constantFrom(lenField(0x1a, [0x08, 0x01, ...lenField(0x12, utf8("up"))]), lenField(0x1a, [0x08, 0x02, ...lenField(0x22, [0xff])]));
const request = fc
  .array(fc.oneof({ weight: 4, arbitrary: usualSeries }, { weight: 3, arbitrary: seriesBytes }, { weight: 1, arbitrary: metadataBytes }), { maxLength: 6 })
  .map((parts) => new Uint8Array(parts.flat()));

/** A store that records what it is asked: definitions' tags and the points written. */
function recordingDeps(): { deps: WriteDeps; calls: unknown[] } {
  const calls: unknown[] = [];
  // Markers (NaN) as a word: toEqual takes any two NaNs as equal, and a marker is the only NaN stored.
  const asWrites = (writes: MetricWrite[]) => writes.map((w) => ({ id: w.id, type: w.type, points: w.points.map((p) => [p.timestamp, Number.isNaN(p.value) ? "marker" : p.value]) }));
  const store = {
    async ensureTags(tenant: string, items: { type: string; id: string; tags: Record<string, string> }[]) {
      // What the store's interface takes of an item (remote write gives its series objects themselves).
      calls.push(["tags", tenant, items.map((i) => ({ type: i.type, id: i.id, tags: { ...i.tags } }))]);
    },
    async write(tenant: string, writes: MetricWrite[]) {
      calls.push(["points", tenant, asWrites(writes)]);
    },
    async writeColumns(tenant: string, cols: WriteColumns) {
      calls.push(["points", tenant, asWrites(columnsToWrites(cols))]);
    },
  } as unknown as MetricsStore;
  return { deps: { store, bus: new PointsBus() }, calls };
}

/**
 * Takes `raw` through the fast path twice with one cache (the first time its label sets may be
 * new, the second time they come from it), `check` reading each round's columns.
 */
async function fastRounds(raw: Uint8Array, check: (cols: SampleColumns<RemoteSeries>) => Promise<void>): Promise<void> {
  const fast = new RemoteWriteColumns();
  for (let round = 0; round < 2; round++) {
    const cols = fast.take();
    try {
      expect(decodeWriteColumns(Buffer.from(raw), fast.cache, fast.map, fast.validTimestamp, cols)).toBe(true);
      await check(cols);
    } finally {
      fast.give(cols);
    }
  }
}

async function generalPath(raw: Uint8Array): Promise<{ calls: unknown[]; skipped?: number; error?: string }> {
  const { deps, calls } = recordingDeps();
  try {
    const req = decodeWriteRequest(raw);
    const series: ForeignSeries[] = req.series.map((s) => {
      const { __name__: name, ...labels } = s.labels;
      return { name: name ?? "", labels, type: "gauge", points: s.samples.map((p) => (p.stale ? { timestamp: p.timestamp, value: p.value, stale: true } : { timestamp: p.timestamp, value: p.value })) };
    });
    const r = await writeForeignSeries(deps, "t", series, "rw");
    return { calls, skipped: r.skipped };
  } catch (e) {
    return { calls, error: (e as Error).message };
  }
}

describe("remote write into columns", () => {
  it("writes what the general path writes whenever it takes a request", async () => {
    const fast = new RemoteWriteColumns();
    let taken = 0;
    let valid = 0;
    await fc.assert(
      fc.asyncProperty(request, async (raw) => {
        const general = await generalPath(raw);
        if (!general.error) valid++;
        // Twice: the first time label sets may be new, the second time they come from the cache.
        for (let round = 0; round < 2; round++) {
          const cols = fast.take();
          // As the route has it: a Buffer (snappy's), whose memory is let go after the request.
          const body = Buffer.from(raw);
          try {
            if (!decodeWriteColumns(body, fast.cache, fast.map, fast.validTimestamp, cols)) continue;
            taken++;
            const { deps, calls } = recordingDeps();
            const r = await writeRemoteColumns(deps, "t", cols, "rw");
            expect(general.error).toBeUndefined();
            expect(r.skipped).toBe(general.skipped);
            // Calls with nothing to do (no definitions, no points) are no-ops either way.
            const effective = (cs: unknown[]) => cs.filter((c) => ((c as unknown[])[2] as unknown[]).length > 0);
            expect(effective(calls)).toEqual(effective(general.calls));
          } finally {
            body.fill(0);
            fast.give(cols);
          }
        }
      }),
      { numRuns: 3000 },
    );
    expect(valid).toBeGreaterThan(800);
    // Most requests the general path takes, the fast path takes too (both rounds).
    expect(taken).toBeGreaterThan(valid);
    // The label sets of the usual series were looked up by their bytes, not mapped again each time.
    expect(fast.cache.size).toBeLessThan(valid);
  });

  it("takes a request that names series again and again, as a backlog's does, merging them as the general path does", async () => {
    // Prometheus sends each sample as a series of its own: a shard's batch spanning three
    // scrapes names each of its series three times, between the others; one series' first
    // sample is skipped (+Inf), another has no finite sample at all.
    const labels = (k: number) => [...labelField("__name__", "bench_value"), ...labelField("series", `s${k}`)];
    const parts: number[][] = [];
    for (let scrape = 0; scrape < 3; scrape++) {
      for (let k = 0; k < 5; k++) {
        const v = k === 1 && scrape === 0 ? Number.POSITIVE_INFINITY : k === 3 ? Number.NaN : scrape * 10 + k;
        parts.push(lenField(0x0a, [...labels(k), ...sampleField(1_700_000_000_000 + scrape * 1000, v)]));
      }
    }
    const raw = new Uint8Array(parts.flat());
    const general = await generalPath(raw);
    expect(general.error).toBeUndefined();
    await fastRounds(raw, async (cols) => {
      // One entry a series with points, in the order first met, its points in request order.
      expect(cols.series.map((s) => s.id)).toEqual([0, 1, 2, 4].map((k) => `bench_value{series="s${k}"}`));
      expect(Array.from(cols.counts.subarray(0, 4))).toEqual([3, 2, 3, 3]);
      expect(Array.from(cols.values.subarray(0, cols.points))).toEqual([0, 10, 20, 11, 21, 2, 12, 22, 4, 14, 24]);
      const { deps, calls } = recordingDeps();
      const r = await writeRemoteColumns(deps, "t", cols, "rw");
      expect(r.skipped).toBe(general.skipped);
      expect(calls).toEqual(general.calls);
    });
  });

  it("takes one series named by two label sets of its labels in another order as one series, as the general path does", async () => {
    const sorted = [...labelField("__name__", "up"), ...labelField("job", "a")];
    const reversed = [...labelField("job", "a"), ...labelField("__name__", "up")];
    const raw = new Uint8Array([
      ...lenField(0x0a, [...sorted, ...sampleField(1_700_000_000_000, 1)]),
      ...lenField(0x0a, [...reversed, ...sampleField(1_700_000_001_000, 2)]),
      ...lenField(0x0a, [...sorted, ...sampleField(1_700_000_002_000, 3)]),
    ]);
    const general = await generalPath(raw);
    expect(general.error).toBeUndefined();
    // The first time both label sets are new; the second time both come from the cache.
    await fastRounds(raw, async (cols) => {
      expect(cols.series.map((s) => s.id)).toEqual(['up{job="a"}']);
      expect(Array.from(cols.values.subarray(0, cols.points))).toEqual([1, 2, 3]);
      const { deps, calls } = recordingDeps();
      await writeRemoteColumns(deps, "t", cols, "rw");
      expect(calls).toEqual(general.calls);
    });
  });

  it("gives every series its own labels' values while sharing repeated ones, past the bound of values kept", () => {
    const fast = new RemoteWriteColumns();
    // 40,000 series: more distinct values than the shared ones kept (so they are let go and kept again).
    const made = Array.from({ length: 40_000 }, (_, i) => fast.map({ __name__: "m", job: `job${i % 7}`, series: `s${i}` })!);
    for (const i of [0, 1, 16_383, 16_384, 20_000, 39_999]) {
      expect(made[i]!.tags).toEqual({ job: `job${i % 7}`, series: `s${i}`, metric: "m" });
      expect(made[i]!.id).toBe(`m{job="job${i % 7}",series="s${i}"}`);
      expect(Object.isFrozen(made[i]!.tags)).toBe(true);
    }
  });
});
