/**
 * The label index against scanning every series: random series and selectors on a real SQLite
 * store, then the index kept up to date as definitions are added, retagged and deleted.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { labelIndex } from "../../../src/prometheus/label-index.ts";
import { openSqliteMetricsStore, type SqliteMetricsStore } from "../../../collector/store/metrics/sqlite/store.ts";
import type { Matcher } from "../../../src/promql/ast.ts";
import { labelsFromRecord } from "../../../src/promql/labels.ts";
import { matchesAll } from "../../../src/promql/matchers.ts";
import { parsePromQL } from "../../../src/promql/parse.ts";
import { metricLabels } from "../../../src/prometheus/series-mapping.ts";

const stores: { s: SqliteMetricsStore; dir: string }[] = [];
afterEach(async () => {
  for (const { s, dir } of stores.splice(0)) {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

async function open(): Promise<SqliteMetricsStore> {
  const dir = mkdtempSync(join(tmpdir(), "outpost-labels-"));
  const s = await openSqliteMetricsStore({ dataDir: dir, synchronous: "NORMAL", maintenanceIntervalMs: 3_600_000 });
  stores.push({ s, dir });
  return s;
}

/** What the index must answer: every numeric series with points, filtered one by one. */
async function scan(store: SqliteMetricsStore, tenant: string, matchers: Matcher[]): Promise<string[]> {
  return (await store.listSeries(tenant))
    .filter((e) => e.type !== "string" && e.minTs !== undefined)
    .filter((e) => matchesAll(labelsFromRecord(metricLabels(e.id, e.tags)), matchers))
    .map((e) => `${e.type}:${e.id}`)
    .sort();
}

async function viaIndex(store: SqliteMetricsStore, tenant: string, matchers: Matcher[]): Promise<string[]> {
  return (await labelIndex(store, tenant)).matching(matchers, 0, Number.MAX_SAFE_INTEGER).map((s) => `${s.entry.type}:${s.entry.id}`).sort();
}

const value = fc.constantFrom("a", "b", "ab", "");
const definition = fc.record({
  type: fc.constantFrom("gauge" as const, "counter" as const, "availability" as const, "string" as const),
  id: fc.constantFrom("m1", "m2", "m3", "m4", "m5", "m6"),
  tags: fc.record({ metric: fc.constantFrom("up", "req", ""), host: value, job: value }, { requiredKeys: [] }),
});
const selector = fc
  .array(fc.tuple(fc.constantFrom("__name__", "host", "job", "zone"), fc.constantFrom("=", "!=", "=~", "!~"), fc.constantFrom("a", "", "a.*", "up|m1", "req", "b")), { minLength: 1, maxLength: 3 })
  .map((ms) => `{${ms.map(([n, op, v]) => `${n}${op}"${v}"`).join(",")}}`)
  .filter((q) => {
    try {
      parsePromQL(q);
      return true;
    } catch {
      return false; // e.g. a selector whose matchers all match the empty value
    }
  });

describe("label index", () => {
  it("selects what scanning every series selects, also after definitions change", async () => {
    const store = await open();
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(definition, { maxLength: 10 }), fc.array(selector, { minLength: 1, maxLength: 3 }), fc.boolean(), async (defs, queries, drop) => {
        const tenant = `t${n++ % 3}`; // tenants are reused, so the index is refreshed, not rebuilt
        for (const d of defs) {
          await store.ensureTags(tenant, [{ type: d.type, id: d.id, tags: d.tags }]);
          if (d.type !== "string") await store.write(tenant, [{ type: d.type, id: d.id, points: [{ timestamp: 1000, value: d.type === "availability" ? "up" : 1 }] }]);
        }
        if (drop && defs.length) await store.deleteMetric(tenant, defs[0]!.type, defs[0]!.id);
        for (const q of queries) {
          const sel = parsePromQL(q);
          if (sel.kind !== "vector") throw new Error("selector expected");
          expect(await viaIndex(store, tenant, sel.matchers)).toEqual(await scan(store, tenant, sel.matchers));
        }
      }),
      { numRuns: 150 },
    );
  });

  it("is not rebuilt while no series comes, goes or is retagged, and still sees the points written meanwhile", async () => {
    const store = await open();
    await store.write("t", [{ type: "gauge", id: "cpu", points: [{ timestamp: 1000, value: 1 }] }]);
    const matchersOf = (q: string) => {
      const sel = parsePromQL(q);
      if (sel.kind !== "vector") throw new Error("selector expected");
      return sel.matchers;
    };
    const inRange = async (start: number, end: number, q = "cpu") => (await labelIndex(store, "t")).matching(matchersOf(q), start, end).length;
    expect(await inRange(5000, 6000)).toBe(0);
    const before = await labelIndex(store, "t");
    // A later point of the same series: the same index answers, with the series' new span.
    await store.write("t", [{ type: "gauge", id: "cpu", points: [{ timestamp: 5500, value: 2 }] }]);
    expect(await labelIndex(store, "t")).toBe(before);
    expect(await inRange(5000, 6000)).toBe(1);
    // A new series is seen at once.
    await store.write("t", [{ type: "gauge", id: "cpu2", points: [{ timestamp: 5500, value: 2 }] }]);
    expect(await inRange(5000, 6000, '{__name__=~"cpu.*"}')).toBe(2);
  });

  it("sees a retagged series under its new labels only", async () => {
    const store = await open();
    await store.ensureTags("t", [{ type: "gauge", id: "cpu", tags: { metric: "cpu", host: "a" } }]);
    await store.write("t", [{ type: "gauge", id: "cpu", points: [{ timestamp: 1000, value: 1 }] }]);
    const byHost = (h: string) => (parsePromQL(`cpu{host="${h}"}`) as { matchers: Matcher[] }).matchers;
    expect(await viaIndex(store, "t", byHost("a"))).toEqual(["gauge:cpu"]);
    await store.updateTags("t", "gauge", "cpu", { host: "b" });
    expect(await viaIndex(store, "t", byHost("a"))).toEqual([]);
    expect(await viaIndex(store, "t", byHost("b"))).toEqual(["gauge:cpu"]);
  });
});
