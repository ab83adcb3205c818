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
import { RemoteWriteColumns, writeRemoteColumns } from "../../../collector/metrics/foreign-writes.ts";
import { decodeWriteColumns } from "../../../src/prometheus/remote-write-columns.ts";
import { double, generalPath, lenField, recordingDeps, request, utf8, varint } from "../../helpers/remote-write-arbitrary.ts";

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
    const labels = (k: number) => lenField(0x0a, [...lenField(0x0a, utf8("__name__")), ...lenField(0x12, utf8("bench_value"))]).concat(lenField(0x0a, [...lenField(0x0a, utf8("series")), ...lenField(0x12, utf8(`s${k}`))]));
    const sample = (t: number, v: number) => lenField(0x12, [0x09, ...double(v), 0x10, ...varint(BigInt(t))]);
    const parts: number[][] = [];
    for (let scrape = 0; scrape < 3; scrape++) {
      for (let k = 0; k < 5; k++) {
        const v = k === 1 && scrape === 0 ? Number.POSITIVE_INFINITY : k === 3 ? Number.NaN : scrape * 10 + k;
        parts.push(lenField(0x0a, [...labels(k), ...sample(1_700_000_000_000 + scrape * 1000, v)]));
      }
    }
    const raw = new Uint8Array(parts.flat());
    const general = await generalPath(raw);
    expect(general.error).toBeUndefined();
    const fast = new RemoteWriteColumns();
    for (let round = 0; round < 2; round++) {
      const cols = fast.take();
      try {
        expect(decodeWriteColumns(Buffer.from(raw), fast.cache, fast.map, fast.validTimestamp, cols)).toBe(true);
        // One entry a series with points, in the order first met, its points in request order.
        expect(cols.series.map((s) => s.id)).toEqual([0, 1, 2, 4].map((k) => `bench_value{series="s${k}"}`));
        expect(Array.from(cols.counts.subarray(0, 4))).toEqual([3, 2, 3, 3]);
        expect(Array.from(cols.values.subarray(0, cols.points))).toEqual([0, 10, 20, 11, 21, 2, 12, 22, 4, 14, 24]);
        const { deps, calls } = recordingDeps();
        const r = await writeRemoteColumns(deps, "t", cols, "rw");
        expect(r.skipped).toBe(general.skipped);
        expect(calls).toEqual(general.calls);
      } finally {
        fast.give(cols);
      }
    }
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
