import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { HOST_METRIC_LIST } from "../../../agent/inputs/host/catalog.ts";

test("docs/metrics.md lists every host metric with its type, unit and tags", () => {
  const doc = readFileSync(join(import.meta.dirname, "../../../docs/metrics.md"), "utf8");
  const rows = new Map<string, string[]>();
  for (const line of doc.split("\n")) {
    const m = /^\| `([a-z0-9_]+)` \|(.*)\|$/.exec(line);
    if (m) rows.set(m[1]!, m[2]!.split("|").map((c) => c.trim()));
  }
  expect([...rows.keys()].sort()).toEqual(HOST_METRIC_LIST.map((m) => m.name).sort());
  for (const m of HOST_METRIC_LIST) {
    const [kind, unit, tags] = rows.get(m.name)!;
    expect([m.name, kind, unit]).toEqual([m.name, m.kind, m.unit]);
    expect(tags?.split(", ")).toEqual(["feed", "metric", m.instanceTag, m.dimensionTag].filter(Boolean));
  }
});
