/**
 * Subqueries (`expr[range:step]`, with offset and @): cases restated from Prometheus'
 * promqltest subquery.test and at_modifier.test; the comparison with a real Prometheus is in
 * test/e2e/promql-reference.test.ts.
 */
import { describe, expect, test } from "vitest";
import { parsePromQL } from "../../src/promql/parse.ts";
import { evalInstant, evalRange, expectLines, MemorySource } from "../helpers/promql.ts";

describe("subqueries", () => {
  const two = new MemorySource().load("10s", "metric 1 2");
  test.each([
    ["10s", "sum_over_time(metric[50s:10s])", ["{} 3"]],
    ["10s", "sum_over_time(metric[50s:5s])", ["{} 4"]],
    ["5m", "sum_over_time(metric[50s:10s])", ["{} 10"]],
    ["5m59s", "sum_over_time(metric[60s:10s])", ["{} 2"]],
    ["10s", "rate(metric[20s:10s])", ["{} 0.1"]],
    ["20s", "rate(metric[20s:5s])", ["{} 0.06666666666666667"]],
  ])("at %s %s", async (at, expr, want) => {
    expectLines(await evalInstant(two, at, expr), want);
  });

  const requests = new MemorySource().load(
    "10s",
    `http_requests{job="api-server", instance="1", group="production"} 0+20x1000 200+30x1000
     http_requests{job="api-server", instance="0", group="production"} 0+10x1000 100+30x1000
     http_requests{job="api-server", instance="0", group="canary"}  0+30x1000 300+80x1000
     http_requests{job="api-server", instance="1", group="canary"}  0+40x2000`,
  );
  test("rate and avg_over_time of subqueries", async () => {
    expectLines(await evalInstant(requests, "8000s", 'rate(http_requests{group=~"pro.*"}[1m:10s])'), ['{group="production", instance="0", job="api-server"} 1', '{group="production", instance="1", job="api-server"} 2']);
    expectLines(await evalInstant(requests, "20000s", "avg_over_time(rate(http_requests[1m])[1m:1s])"), [
      '{group="canary", instance="0", job="api-server"} 8',
      '{group="canary", instance="1", job="api-server"} 4',
      '{group="production", instance="0", job="api-server"} 3',
      '{group="production", instance="1", job="api-server"} 3',
    ]);
  });

  const counters = new MemorySource().load("10s", "metric1 0+1x1000\nmetric2 0+2x1000\nmetric3 0+3x1000");
  test.each([
    ["1000s", "sum_over_time(metric1[30s:10s])", "297"],
    ["1000s", "sum_over_time(metric1[30s:5s])", "591"],
    // The offset moves the window; the steps stay on multiples of the step.
    ["1010s", "sum_over_time(metric1[30s:10s] offset 10s)", "297"],
    ["1010s", "sum_over_time(metric1[30s:10s] offset 9s)", "297"],
    ["1010s", "sum_over_time(metric1[30s:10s] offset 7s)", "297"],
    ["1010s", "sum_over_time(metric1[30s:10s] offset 3s)", "297"],
    ["1010s", "sum_over_time((metric1)[30s:10s] offset 3s)", "297"],
    ["1000s", "rate(sum_over_time(metric1[30s:10s])[50s:10s])", "0.30000000000000004"],
    ["1000s", "rate(sum_over_time(metric2[30s:10s])[50s:10s])", "0.6000000000000001"],
    ["1000s", "rate(sum_over_time(metric3[30s:10s])[50s:10s])", "0.9"],
    ["1000s", "rate(sum_over_time((metric1+metric2+metric3)[30s:10s])[30s:10s])", "1.8"],
  ])("at %s %s", async (at, expr, want) => {
    expectLines(await evalInstant(counters, at, expr), [`{} ${want}`]);
  });

  test("a subquery as an instant query's result: its samples at the steps in the window", async () => {
    expectLines(await evalInstant(counters, "1000s", "metric1[30s:10s]"), ["metric1{} 980:98 990:99 1000:100"]);
    expectLines(await evalInstant(counters, "1005s", "metric1[30s:10s]"), ["metric1{} 980:98 990:99 1000:100"]);
    expectLines(await evalInstant(counters, "1000s", "(metric1 * 2)[20s:7s]"), ["{} 987:196 994:198"]);
  });

  test("@ fixes the subquery's window; start() and end() are the query's", async () => {
    expectLines(await evalInstant(counters, "10s", "sum_over_time(metric1[30s:10s] @ 1000)"), ["{} 297"]);
    expectLines(await evalInstant(counters, "10s", "sum_over_time(metric1[30s:10s] @ 1010 offset 10s)"), ["{} 297"]);
    expectLines(await evalRange(counters, "0", "20s", "10s", "sum_over_time(metric1[30s:10s] @ 1000)"), ["{} 297 297 297"]);
    expectLines(await evalRange(counters, "990s", "1000s", "10s", "sum_over_time(metric1[30s:10s] @ end())"), ["{} 297 297"]);
    // A selector's own @ inside a subquery reads at that time whatever the subquery's steps.
    expectLines(await evalInstant(counters, "1000s", "sum_over_time((metric1 @ 100)[30s:10s])"), ["{} 30"]);
  });

  test("range queries evaluate the inner expression once over all windows", async () => {
    expectLines(await evalRange(counters, "1000s", "1030s", "10s", "sum_over_time(metric1[30s:10s])"), ["{} 297 300 303 306"]);
    expectLines(await evalRange(counters, "1000s", "1010s", "5s", "max_over_time(rate(metric2[20s])[1m:15s])"), ["{} 0.2 0.2 0.2"]);
  });

  test("absent_over_time of a subquery has no labels", async () => {
    expectLines(await evalInstant(counters, "1000s", 'absent_over_time(nothing{job="x"}[1m:10s])'), ["{} 1"]);
    expectLines(await evalInstant(counters, "1000s", "absent_over_time(metric1[1m:10s])"), []);
  });

  test("the step defaults to Prometheus' evaluation interval, one minute", async () => {
    expectLines(await evalInstant(counters, "1000s", "count_over_time(metric1[5m:])"), ["{} 5"]);
  });

  test.each([
    ["metric1[5m:1m][10m:1m]", "1:1: parse error: subquery is only allowed on instant vector, got matrix instead"],
    ["metric1[5m][10m:1m]", "1:1: parse error: subquery is only allowed on instant vector, got matrix instead"],
    ['"a"[10m:1m]', "1:1: parse error: subquery is only allowed on instant vector, got string instead"],
    ["metric1[5m:1m] offset 1m offset 2m", "offset may not be set multiple times"],
    ["metric1[5m:1m] @ 1 @ 2", "@ <timestamp> may not be set multiple times"],
    ["sum(metric1[5m:1m])", "expected type instant vector in aggregation expression, got range vector"],
    ["(1 + 2) offset 1m", "offset modifier must be preceded by an instant vector selector or range vector selector or a subquery"],
    ["-metric1[5m:1m]", '1:1: parse error: unary expression only allowed on expressions of type scalar or instant vector, got "range vector"'],
    ["metric1[5m:0s]", "1:12: parse error: duration must be greater than 0"],
  ])("%s is refused", (expr, message) => {
    expect(() => parsePromQL(expr)).toThrow(message);
  });
});
