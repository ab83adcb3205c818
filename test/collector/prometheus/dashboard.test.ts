/** The ready Grafana dashboard queries metrics the agent really collects, in valid PromQL. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { HOST_METRIC_LIST } from "../../../agent/inputs/host/catalog.ts";
import { parsePromQL } from "../../../src/promql/parse.ts";
import type { Expr } from "../../../src/promql/ast.ts";

const dash = JSON.parse(readFileSync(join(import.meta.dirname, "../../../deploy/grafana-outpost-hosts.json"), "utf8"));

function names(e: Expr, out: string[]): string[] {
  if (e.kind === "vector" && e.name) out.push(e.name);
  if (e.kind === "matrix") names(e.selector, out);
  if (e.kind === "call") for (const a of e.args) names(a, out);
  if (e.kind === "aggregate") names(e.expr, out);
  if (e.kind === "binary") {
    names(e.lhs, out);
    names(e.rhs, out);
  }
  if (e.kind === "unary") names(e.expr, out);
  return out;
}

test("every panel query parses and names a host metric of docs/metrics.md", () => {
  const known = new Set(HOST_METRIC_LIST.map((m) => m.name));
  const exprs: string[] = dash.panels.flatMap((p: { targets: { expr: string }[] }) => p.targets.map((t) => t.expr));
  expect(exprs.length).toBeGreaterThan(8);
  for (const expr of exprs) {
    // Grafana replaces its variables before sending; stand-ins keep the query parseable.
    const e = parsePromQL(expr.replaceAll("$__rate_interval", "1m").replaceAll("$feed", ".*"));
    for (const n of names(e, [])) expect(known, `${n} in ${expr}`).toContain(n);
  }
  expect(dash.templating.list.map((v: { name: string }) => v.name)).toEqual(["datasource", "feed"]);
});
