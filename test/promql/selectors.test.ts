/**
 * Lookback, range boundaries, offset and @, matchers, instant functions: Prometheus 3
 * semantics (docs/prometheus.md), cases restated from its testdata (at_modifier.test,
 * functions.test, histograms.test, staleness.test).
 */
import { describe, expect, test } from "vitest";
import { parsePromQL } from "../../src/promql/parse.ts";
import { evalInstant, evalRange, expectLines, MemorySource } from "../helpers/promql.ts";

describe("lookback and range boundaries", () => {
  const src = new MemorySource().load("10s", "metric 0 1");
  test("an instant selector sees the last sample for 5 minutes, the left bound excluded", async () => {
    expectLines(await evalInstant(src, "10s", "metric"), ["metric{} 1"]);
    expectLines(await evalInstant(src, "5m9s", "metric"), ["metric{} 1"]);
    expectLines(await evalInstant(src, "5m10s", "metric"), []);
    expectLines(await evalRange(src, "0", "6m", "1m", "metric"), ["metric{} 0 1 1 1 1 1 _"]);
  });
  test("a range selector is (t − range, t]", async () => {
    expectLines(await evalInstant(src, "10s", "count_over_time(metric[10s])"), ["{} 1"]);
    expectLines(await evalInstant(src, "10s", "count_over_time(metric[11s])"), ["{} 2"]);
  });
});

describe("offset and @", () => {
  const src = new MemorySource().load("10s", `metric{job="1"} 0+1x1000\nmetric{job="2"} 0+2x1000`);
  test.each([
    ["metric @ 100", ['metric{job="1"} 10', 'metric{job="2"} 20']],
    ["metric @ 100 offset 50s", ['metric{job="1"} 5', 'metric{job="2"} 10']],
    ["metric offset 50s @ 100", ['metric{job="1"} 5', 'metric{job="2"} 10']],
    ["metric @ 0 offset -50s", ['metric{job="1"} 5', 'metric{job="2"} 10']],
    ['sum_over_time(metric{job="1"}[100s] @ 100)', ['{job="1"} 55']],
    ['metric{job="1"} @ start()', ['metric{job="1"} 1']],
  ])("%s", async (expr, want) => {
    expectLines(await evalInstant(src, "10s", expr), want);
  });
  test("@ holds the time still over a range query", async () => {
    expectLines(await evalRange(src, "0", "30s", "10s", 'metric{job="1"} @ 100'), ['metric{job="1"} 10 10 10 10']);
    expectLines(await evalRange(src, "10s", "30s", "10s", 'metric{job="1"} @ end()'), ['metric{job="1"} 3 3 3']);
  });
});

describe("matchers", () => {
  const src = new MemorySource().load("5m", `x{a="foo"} 1\nx{a="bar"} 2\nx{a="foo\\nbar"} 3\ny 4`);
  test.each([
    ['x{a=~"fo.*"}', ['x{a="foo\nbar"} 3', 'x{a="foo"} 1']],
    ['x{a=~"foo|bar"}', ['x{a="bar"} 2', 'x{a="foo"} 1']],
    ['x{a!~"foo.*"}', ['x{a="bar"} 2']],
    ['x{a!="foo"}', ['x{a="bar"} 2', 'x{a="foo\nbar"} 3']],
    ['{__name__=~"x|y", a=""}', ["y{} 4"]],
    ['{"y"}', ["y{} 4"]],
    ['x{a=~"(?i)FOO"}', ['x{a="foo"} 1']],
  ])("%s", async (expr, want) => {
    expectLines(await evalInstant(src, "0", expr), want);
  });
});

describe("instant-vector functions", () => {
  test("clamp, clamp_min, clamp_max", async () => {
    const src = new MemorySource().load("5m", `test_clamp{src="clamp-a"} -50\ntest_clamp{src="clamp-b"} 0\ntest_clamp{src="clamp-c"} 100`);
    expectLines(await evalInstant(src, "0", "clamp_max(test_clamp, 75)"), ['{src="clamp-a"} -50', '{src="clamp-b"} 0', '{src="clamp-c"} 75']);
    expectLines(await evalInstant(src, "0", "clamp_min(test_clamp, -25)"), ['{src="clamp-a"} -25', '{src="clamp-b"} 0', '{src="clamp-c"} 100']);
    expectLines(await evalInstant(src, "0", "clamp(test_clamp, -25, 75)"), ['{src="clamp-a"} -25', '{src="clamp-b"} 0', '{src="clamp-c"} 75']);
    expectLines(await evalInstant(src, "0", "clamp(test_clamp, 5, -5)"), []);
  });
  test("label_replace", async () => {
    const src = new MemorySource().load("5m", `testmetric{src="source-value-10",dst="original-destination-value"} 0\ntestmetric{src="source-value-20",dst="original-destination-value"} 1`);
    expectLines(await evalInstant(src, "0", 'label_replace(testmetric, "dst", "destination-value-$1", "src", "source-value-(.*)")'), [
      'testmetric{dst="destination-value-10", src="source-value-10"} 0',
      'testmetric{dst="destination-value-20", src="source-value-20"} 1',
    ]);
    expectLines(await evalInstant(src, "0", 'label_replace(testmetric, "dst", "destination-value-$1", "src", "value-(.*)")'), [
      'testmetric{dst="original-destination-value", src="source-value-10"} 0',
      'testmetric{dst="original-destination-value", src="source-value-20"} 1',
    ]);
    expectLines(await evalInstant(src, "0", 'label_replace(testmetric, "dst", "", "dst", ".*")'), ['testmetric{src="source-value-10"} 0', 'testmetric{src="source-value-20"} 1']);
    await expect(evalInstant(src, "0", 'label_replace(testmetric, "dst", "x", "src", "(.*")')).rejects.toThrow(/invalid regular expression in label_replace/);
    await expect(evalInstant(src, "0", 'label_replace(testmetric, "invalid-label-name", "", "src", "(.*)")')).rejects.toThrow(/invalid destination label name/);
  });
  test("absent, scalar, vector, time, round", async () => {
    const src = new MemorySource().load("5m", `http_requests{job="api"} 0+10x10`);
    expectLines(await evalInstant(src, "50m", "absent(nonexistent)"), ["{} 1"]);
    expectLines(await evalInstant(src, "50m", 'absent(nonexistent{job="testjob", instance="testinstance", method=~".x"})'), ['{instance="testinstance", job="testjob"} 1']);
    expectLines(await evalInstant(src, "50m", 'absent(nonexistent{job="testjob",job="testjob2",foo="bar"})'), ['{foo="bar"} 1']);
    expectLines(await evalInstant(src, "50m", "absent(http_requests)"), []);
    expectLines(await evalInstant(src, "50m", "absent_over_time(http_requests[5m])"), []);
    expectLines(await evalInstant(src, "50m", "scalar(http_requests) + time()"), ["3100"]);
    expectLines(await evalInstant(src, "50m", "vector(1.25)"), ["{} 1.25"]);
    expectLines(await evalInstant(src, "50m", "round(http_requests / 3)"), ['{job="api"} 33']);
    expectLines(await evalInstant(src, "50m", "round(http_requests / 3, 5)"), ['{job="api"} 35']);
  });
  test("histogram_quantile of classic buckets", async () => {
    const src = new MemorySource().load(
      "5m",
      `testhistogram_bucket{le="0.1", start="positive"} 0+5x10
       testhistogram_bucket{le=".2", start="positive"} 0+7x10
       testhistogram_bucket{le="1e0", start="positive"} 0+11x10
       testhistogram_bucket{le="+Inf", start="positive"} 0+12x10
       testhistogram_bucket{le="-.2", start="negative"} 0+1x10
       testhistogram_bucket{le="-0.1", start="negative"} 0+2x10
       testhistogram_bucket{le="0.3", start="negative"} 0+2x10
       testhistogram_bucket{le="+Inf", start="negative"} 0+3x10`,
    );
    const q = (phi: string) => evalInstant(src, "50m", `histogram_quantile(${phi}, testhistogram_bucket)`);
    expectLines(await q("0"), ['{start="negative"} -0.2', '{start="positive"} 0']);
    expectLines(await q("0.2"), ['{start="negative"} -0.2', '{start="positive"} 0.048']);
    expectLines(await q("0.5"), ['{start="negative"} -0.15', '{start="positive"} 0.15']);
    expectLines(await q("0.8"), ['{start="negative"} 0.3', '{start="positive"} 0.72']);
    expectLines(await q("1"), ['{start="negative"} 0.3', '{start="positive"} 1']);
    expectLines(await q("-0.1"), ['{start="negative"} -Inf', '{start="positive"} -Inf']);
    expectLines(await q("1.01"), ['{start="negative"} +Inf', '{start="positive"} +Inf']);
  });
  test("*_over_time with NaN, quantile_over_time, stddev_over_time", async () => {
    const src = new MemorySource().load(
      "10s",
      `data{type="numbers"} 2 0 3
       data{type="some_nan"} 2 0 NaN
       data{type="some_nan2"} 2 NaN 1
       data{type="some_nan3"} NaN 0 1
       data{type="only_nan"} NaN NaN NaN`,
    );
    expectLines(await evalInstant(src, "1m", "min_over_time(data[2m])"), ['{type="numbers"} 0', '{type="only_nan"} NaN', '{type="some_nan"} 0', '{type="some_nan2"} 1', '{type="some_nan3"} 0']);
    expectLines(await evalInstant(src, "1m", "max_over_time(data[2m])"), ['{type="numbers"} 3', '{type="only_nan"} NaN', '{type="some_nan"} 2', '{type="some_nan2"} 2', '{type="some_nan3"} 1']);
    expectLines(await evalInstant(src, "1m", "last_over_time(data[2m])"), ['data{type="numbers"} 3', 'data{type="only_nan"} NaN', 'data{type="some_nan"} NaN', 'data{type="some_nan2"} 1', 'data{type="some_nan3"} 1']);
    const q = new MemorySource().load("10s", `data{test="two samples"} 0 1\ndata{test="three samples"} 0 1 2\ndata{test="uneven samples"} 0 1 4`);
    expectLines(await evalInstant(q, "1m", "quantile_over_time(0.75, data[2m])"), ['{test="three samples"} 1.5', '{test="two samples"} 0.75', '{test="uneven samples"} 2.5']);
    expectLines(await evalInstant(q, "1m", "quantile_over_time(2, data[2m])"), ['{test="three samples"} +Inf', '{test="two samples"} +Inf', '{test="uneven samples"} +Inf']);
    const m = new MemorySource().load("10s", "metric 0 8 8 2 3");
    expectLines(await evalInstant(m, "1m", "stdvar_over_time(metric[2m])"), ["{} 10.56"]);
    expectLines(await evalInstant(m, "1m", "stddev_over_time(metric[2m])"), ["{} 3.249615"]);
    expectLines(await evalInstant(m, "1m", "avg_over_time(metric[2m])"), ["{} 4.2"]);
    expectLines(await evalInstant(m, "1m", "sum_over_time(metric[2m])"), ["{} 21"]);
  });
});

describe("parse errors", () => {
  test.each([
    ["sum(", /^1:5: parse error: unexpected end of input$/],
    ["rate(x)", /expected type range vector in call to function "rate", got instant vector/],
    ["x[5m] + 1", /binary expression must contain only scalar and instant vector types/],
    ["round()", /expected at least 1 argument\(s\) in call to "round", got 0/],
    ['topk("a", x)', /expected type scalar in aggregation parameter, got string/],
    ["x and 1", /set operator "and" not allowed in binary scalar expression/],
    ["1 + on(a) 2", /vector matching only allowed between instant vectors/],
    ["x + bool y", /bool modifier can only be used on comparison operators/],
    ["x offset 1m offset 2m", /offset may not be set multiple times/],
    ['x{a=~"("}', /error parsing regexp/],
    ["mad_over_time(x[5m])", /^1:1: function "mad_over_time" is not supported by Outpost$/],
    ["1 +\n  sum(", /^2:7: parse error/],
  ])("%s", (expr, msg) => {
    expect(() => parsePromQL(expr)).toThrow(msg);
  });
});
