/** Aggregations, restated from Prometheus' testdata/aggregators.test over the same series. */
import { describe, test } from "vitest";
import { evalInstant, evalRange, expectLines, httpRequests, MemorySource } from "../helpers/promql.ts";

const requests = httpRequests();

describe("sum, avg, count, min, max with by and without", () => {
  test.each([
    ['SUM BY (group) (http_requests{job="api-server"})', ['{group="canary"} 700', '{group="production"} 300']],
    ['sum by (group) (http_requests{job="api-server"})', ['{group="canary"} 700', '{group="production"} 300']],
    ['avg by (group) (http_requests{job="api-server"})', ['{group="canary"} 350', '{group="production"} 150']],
    ['count by (group) (http_requests{job="api-server"})', ['{group="canary"} 2', '{group="production"} 2']],
    ['sum without (instance) (http_requests{job="api-server"})', ['{group="canary", job="api-server"} 700', '{group="production", job="api-server"} 300']],
    ['sum by () (http_requests{job="api-server"})', ["{} 1000"]],
    ['sum(http_requests{job="api-server"})', ["{} 1000"]],
    ["sum(http_requests) by (job) + min(http_requests) by (job) + max(http_requests) by (job) + avg(http_requests) by (job)", ['{job="api-server"} 1750', '{job="app-server"} 4550']],
    ["min by (job) (http_requests)", ['{job="api-server"} 100', '{job="app-server"} 500']],
    ["max by (job) (http_requests)", ['{job="api-server"} 400', '{job="app-server"} 800']],
    ["group by (job) (http_requests)", ['{job="api-server"} 1', '{job="app-server"} 1']],
    ["stddev(http_requests)", ["{} 229.12878474779"]],
    ["stdvar(http_requests)", ["{} 52500"]],
    ['stddev by (instance) (http_requests)', ['{instance="0"} 223.60679774998', '{instance="1"} 223.60679774998']],
    ["quantile(0.5, http_requests)", ["{} 450"]],
    ['quantile by (group) (0.75, http_requests)', ['{group="canary"} 725', '{group="production"} 525']],
    ['count_values("value", http_requests{job="api-server"})', ['{value="100"} 1', '{value="200"} 1', '{value="300"} 1', '{value="400"} 1']],
  ])("%s", async (expr, want) => {
    expectLines(await evalInstant(requests, "50m", expr), want);
  });
});

describe("topk and bottomk", () => {
  test("topk keeps the original series, largest first", async () => {
    expectLines(await evalInstant(requests, "50m", "topk(3, http_requests)"), [
      'http_requests{group="canary", instance="0", job="app-server"} 700',
      'http_requests{group="canary", instance="1", job="app-server"} 800',
      'http_requests{group="production", instance="1", job="app-server"} 600',
    ]);
  });
  test("bottomk and topk by group", async () => {
    expectLines(await evalInstant(requests, "50m", "bottomk(3, http_requests)"), [
      'http_requests{group="canary", instance="0", job="api-server"} 300',
      'http_requests{group="production", instance="0", job="api-server"} 100',
      'http_requests{group="production", instance="1", job="api-server"} 200',
    ]);
    expectLines(await evalInstant(requests, "50m", "topk by (group) (1, http_requests)"), [
      'http_requests{group="canary", instance="1", job="app-server"} 800',
      'http_requests{group="production", instance="1", job="app-server"} 600',
    ]);
  });
  test("NaN ranks last, and k below 1 selects nothing", async () => {
    const src = new MemorySource().load("5m", `x{a="1"} NaN\nx{a="2"} 1\nx{a="3"} 2`);
    expectLines(await evalInstant(src, "0", "topk(2, x)"), ['x{a="2"} 1', 'x{a="3"} 2']);
    expectLines(await evalInstant(src, "0", "bottomk(2, x)"), ['x{a="2"} 1', 'x{a="3"} 2']);
    expectLines(await evalInstant(src, "0", "topk(0, x)"), []);
  });
  test("over a range, each step has its own top series", async () => {
    const src = new MemorySource().load("1m", `x{a="up"} 0 1 2 3\nx{a="down"} 3 2 1 0`);
    expectLines(await evalRange(src, "0", "3m", "1m", "topk(1, x)"), ['x{a="down"} 3 2 _ _', 'x{a="up"} _ _ 2 3']);
  });
});
