/**
 * Range functions, restated from Prometheus' promql/promqltest/testdata/functions.test (the
 * same series and expected values) over hand-built series.
 */
import { describe, test } from "vitest";
import { evalInstant, evalRange, MemorySource, expectLines } from "../helpers/promql.ts";

describe("resets and changes", () => {
  const src = new MemorySource().load(
    "5m",
    `http_requests{path="/foo"} 1 2 3 0 1 0 0 1 2 0
     http_requests{path="/bar"} 1 2 3 4 5 1 2 3 4 5
     http_requests{path="/biz"} 0 0 0 0 0 1 1 1 1 1`,
  );
  test.each([
    ["5m", []],
    ["10m", ['{path="/bar"} 0', '{path="/biz"} 0', '{path="/foo"} 0']],
    ["600", ['{path="/bar"} 0', '{path="/biz"} 0', '{path="/foo"} 0']],
    ["20m", ['{path="/bar"} 0', '{path="/biz"} 0', '{path="/foo"} 1']],
    ["32m", ['{path="/bar"} 1', '{path="/biz"} 0', '{path="/foo"} 2']],
    ["50m", ['{path="/bar"} 1', '{path="/biz"} 0', '{path="/foo"} 3']],
  ])("resets over %s", async (range, want) => {
    expectLines(await evalInstant(src, "50m", `resets(http_requests[${range}])`), want);
  });
  test.each([
    ["5m", []],
    ["6m", ['{path="/bar"} 0', '{path="/biz"} 0', '{path="/foo"} 0']],
    ["20m", ['{path="/bar"} 2', '{path="/biz"} 0', '{path="/foo"} 2']],
    ["30m", ['{path="/bar"} 4', '{path="/biz"} 0', '{path="/foo"} 3']],
    ["50m", ['{path="/bar"} 8', '{path="/biz"} 1', '{path="/foo"} 7']],
  ])("changes over %s", async (range, want) => {
    expectLines(await evalInstant(src, "50m", `changes(http_requests[${range}])`), want);
  });
  test("changes counts NaN to NaN as no change", async () => {
    const nan = new MemorySource().load("5m", `x{a="b"} NaN NaN NaN\nx{a="c"} 0 NaN 0`);
    expectLines(await evalInstant(nan, "15m", "changes(x[20m])"), ['{a="b"} 0', '{a="c"} 2']);
  });
  test("a series that does not exist gives an empty result", async () => {
    expectLines(await evalInstant(src, "50m", "changes(nonexistent_metric[50m])"), []);
  });
});

describe("increase and rate extrapolation", () => {
  const src = new MemorySource().load(
    "5m",
    `http_requests_total{path="/foo"} 0+10x10
     http_requests_total{path="/bar"} 0+18x5 0+18x5
     http_requests_total{path="/dings"} 10+10x10
     http_requests_total{path="/bumms"} 1+10x10`,
  );
  test("over the whole series", async () => {
    expectLines(await evalInstant(src, "50m", "increase(http_requests_total[50m])"), [
      '{path="/bar"} 160',
      '{path="/bumms"} 100',
      '{path="/dings"} 100',
      '{path="/foo"} 100',
    ]);
  });
  test("extrapolates towards the start, but a counter not below zero", async () => {
    expectLines(await evalInstant(src, "50m", "increase(http_requests_total[100m])"), [
      '{path="/bar"} 162',
      '{path="/bumms"} 101',
      '{path="/dings"} 105',
      '{path="/foo"} 100',
    ]);
  });
  test("a counter reset counts as a restart from zero", async () => {
    const r = new MemorySource().load("5m", `http_requests_total{path="/foo"} 0 1 2 3 2 3 4`);
    expectLines(await evalInstant(r, "30m", "increase(http_requests_total[30m])"), ['{path="/foo"} 7']);
  });
  test("resets in the middle and at the end of the range", async () => {
    const r = new MemorySource().load("5m", "testcounter_reset_middle_total 0+27x4 0+27x5\ntestcounter_reset_end_total 0+10x9 0 10");
    expectLines(await evalInstant(r, "50m", "rate(testcounter_reset_middle_total[50m])"), ["{} 0.08"]);
    expectLines(await evalInstant(r, "50m", "rate(testcounter_reset_end_total[5m])"), []);
    expectLines(await evalInstant(r, "50m", "rate(testcounter_reset_end_total[6m])"), ["{} 0"]);
  });
  test("per second, with offset", async () => {
    const r = new MemorySource().load(
      "5m",
      `calculate_rate_offset_total{x="a"} 0+10x10
       calculate_rate_offset_total{x="b"} 0+20x10
       calculate_rate_window_total 0+80x10`,
    );
    expectLines(await evalInstant(r, "50m", "rate(calculate_rate_window_total[50m])"), ["{} 0.26666666666666666"]);
    expectLines(await evalInstant(r, "50m", "rate(calculate_rate_offset_total[10m] offset 5m)"), [
      '{x="a"} 0.03333333333333333',
      '{x="b"} 0.06666666666666667',
    ]);
  });
  test("zero cut-off of the left extrapolation", async () => {
    const r = new MemorySource().load(
      "4m",
      ["0m", "1m", "2m", "3m", "4m", "5m"].map((s, i) => `testcounter_zero_cutoff_total{start="${s}"} ${i * 60}+240x10`).join("\n"),
    );
    expectLines(await evalInstant(r, "10m", "rate(testcounter_zero_cutoff_total[20m])"), [
      '{start="0m"} 0.5',
      '{start="1m"} 0.55',
      '{start="2m"} 0.6',
      '{start="3m"} 0.6',
      '{start="4m"} 0.6',
      '{start="5m"} 0.6',
    ]);
    expectLines(await evalInstant(r, "50m", "rate(testcounter_zero_cutoff_total[20m])"), 
      ["0m", "1m", "2m", "3m", "4m", "5m"].map((s) => `{start="${s}"} 0.6`),
    );
  });
});

describe("irate, delta, idelta", () => {
  test("irate from the last two samples, and after a reset", async () => {
    const r = new MemorySource().load("5m", `http_requests_total{path="/foo"} 0+10x10\nhttp_requests_total{path="/bar"} 0+10x5 0+10x5`);
    expectLines(await evalInstant(r, "50m", "irate(http_requests_total[50m])"), ['{path="/bar"} 0.03333333333333333', '{path="/foo"} 0.03333333333333333']);
    expectLines(await evalInstant(r, "30m", "irate(http_requests_total[50m])"), ['{path="/bar"} 0', '{path="/foo"} 0.03333333333333333']);
  });
  test("irate and idelta through NaN samples", async () => {
    const r = new MemorySource().load("5m", "http_requests_nan 1 NaN NaN 5 11");
    expectLines(await evalRange(r, "0", "20m", "5m", "irate(http_requests_nan[15m1s])"), ["{} _ NaN NaN NaN 0.02"]);
    expectLines(await evalRange(r, "0", "20m", "5m", "idelta(http_requests_nan[15m1s])"), ["{} _ NaN NaN NaN 6"]);
  });
  test("delta of gauges and idelta", async () => {
    const r = new MemorySource().load("5m", `http_requests{path="/foo"} 0 50 100 150 200\nhttp_requests{path="/bar"} 200 150 100 50 0`);
    expectLines(await evalInstant(r, "20m", "delta(http_requests[20m])"), ['{path="/bar"} -200', '{path="/foo"} 200']);
    const i = new MemorySource().load("5m", `http_requests{path="/foo"} 0 50 100 150\nhttp_requests{path="/bar"} 0 50 100 50`);
    expectLines(await evalInstant(i, "20m", "idelta(http_requests[20m])"), ['{path="/bar"} -50', '{path="/foo"} 50']);
  });
});

describe("deriv and predict_linear", () => {
  const src = new MemorySource().load(
    "5m",
    `testcounter_reset_middle_total 0+10x4 0+10x5
     http_requests_total{job="app-server", instance="1", group="canary"} 0+80x10
     http_requests_inf{job="app-server", instance="1", group="canary"} -Inf 0+80x10 Inf`,
  );
  test("deriv equals rate on a straight line; least squares otherwise", async () => {
    expectLines(await evalInstant(src, "50m", "deriv(http_requests_total[50m])"), ['{group="canary", instance="1", job="app-server"} 0.26666666666666666']);
    expectLines(await evalInstant(src, "50m", "deriv(testcounter_reset_middle_total[100m])"), ["{} 0.010606060606060607"]);
    expectLines(await evalInstant(src, "100m", "deriv(http_requests_inf[100m])"), ['{group="canary", instance="1", job="app-server"} NaN']);
  });
  test.each([
    ["50m", "predict_linear(testcounter_reset_middle_total[50m], 3600)", "70"],
    ["50m", "predict_linear(testcounter_reset_middle_total[50m], 1h)", "70"],
    ["50m", "predict_linear(testcounter_reset_middle_total[55m] @ 3000, 3600)", "76.81818181818181"],
    ["10m", "predict_linear(testcounter_reset_middle_total[55m] @ 3000, 3600)", "51.36363636363637"],
    ["70m", "predict_linear(testcounter_reset_middle_total[55m] @ 3000, 3600)", "89.54545454545455"],
  ])("at %s: %s", async (at, expr, want) => {
    expectLines(await evalInstant(src, at, expr), [`{} ${want}`]);
  });
});
