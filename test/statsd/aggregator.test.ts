import { describe, expect, test } from "vitest";
import { StatsdAggregator } from "../../src/statsd/aggregator.ts";
import { parseStatsdLine } from "../../src/statsd/statsd-line.ts";

describe("StatsD lines", () => {
  test("types, rates, DogStatsD tags and multiple values", () => {
    expect(parseStatsdLine("a.b:3|c|@0.5|#env:prod,region:eu,novalue")).toEqual({ name: "a.b", type: "c", values: [3], delta: false, rate: 0.5, tags: [["env", "prod"], ["region", "eu"]] });
    expect(parseStatsdLine("g:-4|g").delta).toBe(true);
    expect(parseStatsdLine("t:1:2:3|ms|c:abc|T1700000000").values).toEqual([1, 2, 3]);
    expect(parseStatsdLine("s:user-1|s").values).toEqual(["user-1"]);
    for (const bad of ["x|c", "x:1", "x:1|q", "x:abc|c", "x:1|c|@2", "x:1|c|zz", "_sc|name|0"]) expect(() => parseStatsdLine(bad), bad).toThrow();
  });
});

describe("aggregation per flush", () => {
  const at = 1_700_000_000_000;
  test("a series not updated for expire_after ends with a staleness marker, then is forgotten", () => {
    const a = new StatsdAggregator({ percentiles: [90], expireAfterMs: 60_000, maxSeries: 10, staleMarker: Number.NaN });
    a.add(parseStatsdLine("hits:1|c"), at);
    a.add(parseStatsdLine("lat:5|ms"), at);
    expect(a.flush(at + 10_000).map((s) => [s.name, s.value])).toEqual([
      ["hits_total", 1],
      ["lat", 5],
      ["lat_min", 5],
      ["lat_max", 5],
      ["lat_sum", 5],
      ["lat_count", 1],
    ]);
    // Still known, no new timings: only the running sum and count of the timer.
    expect(a.flush(at + 20_000).map((s) => s.name)).toEqual(["hits_total", "lat_sum", "lat_count"]);
    const ended = a.flush(at + 61_000);
    expect(ended.map((s) => [s.name, s.labels.quantile])).toEqual([
      ["hits_total", undefined],
      ["lat", "0.9"],
      ["lat_min", undefined],
      ["lat_max", undefined],
      ["lat_sum", undefined],
      ["lat_count", undefined],
    ]);
    expect(ended.every((s) => Number.isNaN(s.value))).toBe(true);
    expect(a.size).toBe(0);
  });

  test("beyond max_series new series are refused and counted; names and tag keys made Prometheus names", () => {
    const a = new StatsdAggregator({ percentiles: [], expireAfterMs: 0, maxSeries: 1, staleMarker: undefined });
    a.add(parseStatsdLine("9lives.x-y:1|g|#host.name:h1"), at);
    a.add(parseStatsdLine("other:1|g"), at);
    expect(a.refused).toBe(1);
    expect(a.flush(at)).toEqual([{ name: "_9lives_x_y", labels: { host_name: "h1" }, value: 1 }]);
  });
});
