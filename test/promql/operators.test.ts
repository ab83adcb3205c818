/** Binary operators and vector matching, restated from Prometheus' testdata/operators.test. */
import { describe, expect, test } from "vitest";
import { parsePromQL } from "../../src/promql/parse.ts";
import { instantQuery } from "../../src/promql/query.ts";
import { evalInstant, expectLines, httpRequests, MemorySource } from "../helpers/promql.ts";

const requests = httpRequests();

describe("arithmetic and comparison", () => {
  test.each([
    ["2 - SUM(http_requests) BY (job)", ['{job="api-server"} -998', '{job="app-server"} -2598']],
    [
      'http_requests{job="api-server", group="canary"} + rate(http_requests{job="api-server"}[10m]) * 5 * 60',
      ['{group="canary", instance="0", job="api-server"} 330', '{group="canary", instance="1", job="api-server"} 440'],
    ],
    ["SUM(http_requests) BY (job) > 1000", ['{job="app-server"} 2600']],
    ["1000 < SUM(http_requests) BY (job)", ['{job="app-server"} 2600']],
    ["SUM(http_requests) BY (job) <= 1000", ['{job="api-server"} 1000']],
    ["SUM(http_requests) BY (job) != 1000", ['{job="app-server"} 2600']],
    ["SUM(http_requests) BY (job) == bool 1000", ['{job="api-server"} 1', '{job="app-server"} 0']],
    ["0 == bool 1", ["0"]],
    ["1 == bool 1", ["1"]],
    ["-2^2", ["-4"]],
    ["-2^-2", ["-0.25"]],
    ["1 + -2^2", ["-3"]],
    ["2^3^2", ["512"]],
    ["10 % 3 * 2 - 1", ["1"]],
    ["-1 ^ Inf", ["-1"]],
    ["(-1) ^ Inf", ["1"]],
    ['http_requests{job="api-server", instance="0", group="production"} > bool 50', ['{group="production", instance="0", job="api-server"} 1']],
    ['http_requests{job="api-server", instance="0", group="production"} > 50', ['http_requests{group="production", instance="0", job="api-server"} 100']],
  ])("%s", async (expr, want) => {
    expectLines(await evalInstant(requests, "50m", expr), want);
  });
});

describe("set operators", () => {
  test.each([
    ['http_requests{group="canary"} and http_requests{instance="0"}', ['http_requests{group="canary", instance="0", job="api-server"} 300', 'http_requests{group="canary", instance="0", job="app-server"} 700']],
    ['(http_requests{group="canary"} + 1) and http_requests{instance="0"}', ['{group="canary", instance="0", job="api-server"} 301', '{group="canary", instance="0", job="app-server"} 701']],
    ['http_requests{group="canary"} unless http_requests{instance="0"}', ['http_requests{group="canary", instance="1", job="api-server"} 400', 'http_requests{group="canary", instance="1", job="app-server"} 800']],
    ['http_requests{group="canary"} unless on(job) http_requests{instance="0"}', []],
    ['http_requests{group="canary"} and on(instance) http_requests{job="app-server", group="production", instance="1"}', ['http_requests{group="canary", instance="1", job="api-server"} 400', 'http_requests{group="canary", instance="1", job="app-server"} 800']],
    ['sum by (job) (http_requests) or vector(7)', ['{job="api-server"} 1000', '{job="app-server"} 2600', "{} 7"]],
    ['sum(nonexistent) or vector(7)', ["{} 7"]],
  ])("%s", async (expr, want) => {
    expectLines(await evalInstant(requests, "50m", expr), want);
  });
});

describe("vector matching", () => {
  test.each([
    ['http_requests{group="canary"} / on(instance,job) http_requests{group="production"}', [
      '{instance="0", job="api-server"} 3',
      '{instance="0", job="app-server"} 1.4',
      '{instance="1", job="api-server"} 2',
      '{instance="1", job="app-server"} 1.3333333333333333',
    ]],
    ['http_requests{group="canary"} / ignoring(group) http_requests{group="production"}', [
      '{instance="0", job="api-server"} 3',
      '{instance="0", job="app-server"} 1.4',
      '{instance="1", job="api-server"} 2',
      '{instance="1", job="app-server"} 1.3333333333333333',
    ]],
  ])("%s", async (expr, want) => {
    expectLines(await evalInstant(requests, "50m", expr), want);
  });

  const nodes = new MemorySource().load(
    "5m",
    `node_role{instance="abc",job="node",role="prometheus"} 1
     node_cpu{instance="abc",job="node",mode="idle"} 3
     node_cpu{instance="abc",job="node",mode="user"} 1
     node_cpu{instance="def",job="node",mode="idle"} 8
     node_cpu{instance="def",job="node",mode="user"} 2`,
  );
  test("group_left copies labels from the one side", async () => {
    expectLines(await evalInstant(nodes, "0", "node_cpu * on(instance) group_left(role) node_role"), [
      '{instance="abc", job="node", mode="idle", role="prometheus"} 3',
      '{instance="abc", job="node", mode="user", role="prometheus"} 1',
    ]);
    expectLines(await evalInstant(nodes, "0", "node_cpu / on(instance) group_left sum by (instance,job)(node_cpu)"), [
      '{instance="abc", job="node", mode="idle"} 0.75',
      '{instance="abc", job="node", mode="user"} 0.25',
      '{instance="def", job="node", mode="idle"} 0.8',
      '{instance="def", job="node", mode="user"} 0.2',
    ]);
  });
  test("group_right is the mirror image", async () => {
    expectLines(await evalInstant(nodes, "0", "sum by (instance,job)(node_cpu) / on(instance) group_right node_cpu"), [
      '{instance="abc", job="node", mode="idle"} 1.3333333333333333',
      '{instance="abc", job="node", mode="user"} 4',
      '{instance="def", job="node", mode="idle"} 1.25',
      '{instance="def", job="node", mode="user"} 5',
    ]);
  });
  test("many-to-one without group_left is an error, as in Prometheus", async () => {
    await expect(evalInstant(nodes, "0", "node_cpu * on(instance) node_role")).rejects.toThrow(/many-to-one matching must be explicit/);
    await expect(evalInstant(nodes, "0", "node_role * on(job) group_left node_cpu")).rejects.toThrow(/found duplicate series for the match group/);
  });
});

describe("result order of instant queries", () => {
  test("topk lists the largest first, sort and sort_desc order by value", async () => {
    const names = async (q: string) => {
      const r = await instantQuery(parsePromQL(q), requests, 3_000_000);
      return r.resultType === "vector" ? r.result.map((s) => s.v) : [];
    };
    expect(await names("topk(3, http_requests)")).toEqual([800, 700, 600]);
    expect(await names("bottomk(2, http_requests)")).toEqual([100, 200]);
    expect(await names('sort(http_requests{job="api-server"})')).toEqual([100, 200, 300, 400]);
    expect(await names('sort_desc(http_requests{job="api-server"})')).toEqual([400, 300, 200, 100]);
  });
});
