/**
 * Remote write's spare columns (RemoteWriteColumns.take/give, issue 28): Prometheus catching up
 * over up to 200 shards has that many requests in flight, each holding its columns until its
 * commit. The columns of every request of such a wave are reused by the next wave (not made
 * anew), a request's columns are not handed to another while it holds them, and what the spares
 * keep stays within SPARE_BYTES however large the requests were.
 */
import { describe, expect, it } from "vitest";
import { RemoteWriteColumns, SPARE_BYTES } from "../../../collector/metrics/foreign-writes.ts";
import { decodeWriteColumns } from "../../../src/prometheus/remote-write-columns.ts";
import { encodeWriteRequest } from "../../helpers/remote-write.ts";

const T0 = Date.now() - 3_600_000;

/** A request as a backlog over many shards sends it: a few points of each of `series` series. */
function request(series: number, points: number, round: number): Uint8Array {
  return encodeWriteRequest(
    Array.from({ length: series }, (_, s) => ({
      labels: { __name__: "bench_value", instance: `host-${s}:9100`, job: "node" },
      samples: Array.from({ length: points }, (_, p) => [T0 + (round * points + p) * 1000, s + p] as [number, number]),
    })),
  );
}

describe("remote write's spare columns", () => {
  it("reuses the columns of a wave of 200 requests in flight for the next wave", () => {
    const rw = new RemoteWriteColumns();
    const body = request(150, 3, 0);
    const wave = () => {
      const held = Array.from({ length: 200 }, () => rw.take());
      // None handed out twice while held.
      expect(new Set(held).size).toBe(200);
      for (const c of held) expect(decodeWriteColumns(body, rw.cache, rw.map, rw.validTimestamp, c)).toBe(true);
      for (const c of held) expect(c.points).toBe(450);
      for (const c of held) rw.give(c);
      return held;
    };
    const first = new Set(wave());
    const second = wave();
    expect(second.filter((c) => first.has(c)).length).toBe(200);
  });

  it("keeps no more than SPARE_BYTES of columns, whatever the requests' size", () => {
    const rw = new RemoteWriteColumns();
    const body = request(1000, 20, 1);
    const held = Array.from({ length: 120 }, () => rw.take());
    for (const c of held) expect(decodeWriteColumns(body, rw.cache, rw.map, rw.validTimestamp, c)).toBe(true);
    const each = held[0]!.byteLength;
    expect(each).toBeGreaterThan(20_000 * 16);
    for (const c of held) rw.give(c);
    const again = Array.from({ length: 120 }, () => rw.take());
    const kept = again.filter((c) => held.includes(c));
    expect(kept.length).toBe(Math.floor(SPARE_BYTES / each));
    expect(kept.length * each).toBeLessThanOrEqual(SPARE_BYTES);
  });

  it("regroups a request that names its series again within the columns it has, with no second pair of arrays", () => {
    const rw = new RemoteWriteColumns();
    const c = rw.take();
    // Sized by a request of 1,500 points, each series once.
    expect(decodeWriteColumns(request(500, 3, 0), rw.cache, rw.map, rw.validTimestamp, c)).toBe(true);
    const { ts, values } = c;
    // As a backlog sends: the same 500 series three times over, a point each time (1,500 points).
    const again = encodeWriteRequest(
      Array.from({ length: 1500 }, (_, k) => ({
        labels: { __name__: "bench_value", instance: `host-${k % 500}:9100`, job: "node" },
        samples: [[T0 + (10 + Math.floor(k / 500)) * 1000, k] as [number, number]],
      })),
    );
    expect(decodeWriteColumns(again, rw.cache, rw.map, rw.validTimestamp, c)).toBe(true);
    expect(c.series.length).toBe(500);
    expect(c.ts).toBe(ts);
    expect(c.values).toBe(values);
    // In the order first met: host-7 is the eighth series, its three points together and in request order.
    expect(c.series[7]!.id).toContain("host-7:");
    let o = 0;
    for (let k = 0; k < 7; k++) o += c.counts[k]!;
    expect(c.counts[7]).toBe(3);
    expect([...c.values.subarray(o, o + 3)]).toEqual([7, 507, 1007]);
    expect([...c.ts.subarray(o, o + 3)]).toEqual([T0 + 10_000, T0 + 11_000, T0 + 12_000]);
  });
});
