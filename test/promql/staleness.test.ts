/**
 * Staleness markers, as Prometheus 3 treats them: cases restated from promqltest's
 * staleness.test (with Prometheus 3's left-open lookback), plus range queries crossing a
 * marker and functions over it. The markers reach the evaluator apart from the samples
 * (RawSeries.stale); the store's side is tested in test/collector/prometheus/staleness.test.ts.
 */
import { describe, test } from "vitest";
import { evalInstant, evalRange, expectLines, MemorySource } from "../helpers/promql.ts";

describe("staleness markers", () => {
  const src = new MemorySource().load("10s", "metric 0 1 stale 2");

  test.each([
    ["10s", ["metric{} 1"]],
    ["20s", []],
    ["29s", []],
    ["30s", ["metric{} 2"]],
    ["40s", ["metric{} 2"]],
    ["329s", ["metric{} 2"]],
    ["330s", []],
  ])("an instant selector at %s: nothing while the latest sample is a marker", async (at, want) => {
    expectLines(await evalInstant(src, at, "metric"), want);
  });

  test.each([
    ["30s", "count_over_time(metric[1m])", ["{} 3"]],
    ["10s", "count_over_time(metric[1s])", ["{} 1"]],
    ["20s", "count_over_time(metric[1s])", []],
    ["20s", "count_over_time(metric[10s])", []],
    ["20s", "count_over_time(metric[20s])", ["{} 1"]],
  ])("a range vector leaves markers out: at %s %s", async (at, expr, want) => {
    expectLines(await evalInstant(src, at, expr), want);
  });

  test("a range query does not look back across a marker", async () => {
    expectLines(await evalRange(src, "0", "60s", "5s", "metric"), ["metric{} 0 0 1 1 _ _ 2 2 2 2 2 2 2"]);
    expectLines(await evalRange(src, "0", "60s", "5s", "timestamp(metric)"), ["{} 0 0 10 10 _ _ 30 30 30 30 30 30 30"]);
  });

  test("a marker ends the series for good when no sample follows", async () => {
    const ended = new MemorySource().load("1m", "up_one 1 1 1 stale\nup_two 1 1 1");
    expectLines(await evalRange(ended, "0", "5m", "1m", "up_one"), ["up_one{} 1 1 1 _ _ _"]);
    // Without a marker a series is seen for the lookback (5 minutes) after its last sample.
    expectLines(await evalRange(ended, "0", "8m", "1m", "up_two"), ["up_two{} 1 1 1 1 1 1 1 _ _"]);
    expectLines(await evalInstant(ended, "4m", "absent(up_one)"), ["{} 1"]);
    expectLines(await evalInstant(ended, "4m", "absent(up_two)"), []);
  });

  test("offset and @ see the marker where they look", async () => {
    expectLines(await evalInstant(src, "40s", "metric offset 20s"), []);
    expectLines(await evalInstant(src, "40s", "metric offset 30s"), ["metric{} 1"]);
    expectLines(await evalInstant(src, "100s", "metric @ 25"), []);
  });

  test("rate and friends run over the samples only", async () => {
    const c = new MemorySource().load("15s", "requests_total 0 15 30 stale 60 75");
    expectLines(await evalInstant(c, "75s", "increase(requests_total[76s])"), ["{} 75"]);
    expectLines(await evalInstant(c, "45s", "changes(requests_total[1m])"), ["{} 2"]);
    expectLines(await evalInstant(c, "45s", "last_over_time(requests_total[1m])"), ["requests_total{} 30"]);
  });
});
