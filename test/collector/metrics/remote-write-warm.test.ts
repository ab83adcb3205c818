/**
 * Remote write's series cache filled from the store at start (RemoteWriteColumns.warm, issue
 * 28): a restarted collector whose cache was filled must end with the same series, tags and
 * points as one that maps every label set anew, for the same requests; the label sets it filled
 * are found without being mapped, and those it cannot tell apart are left to the mapping.
 */
import { describe, expect, it } from "vitest";
import { PointsBus } from "../../../collector/events/points-bus.ts";
import { RemoteWriteColumns, writeRemoteColumns } from "../../../collector/metrics/foreign-writes.ts";
import { openSqliteMetricsStore, type SqliteMetricsStore } from "../../../collector/store/metrics/sqlite/store.ts";
import type { SeriesEntry } from "../../../src/metrics/reader.ts";
import { decodeWriteColumns } from "../../../src/prometheus/remote-write-columns.ts";
import { encodeWriteRequest } from "../../helpers/remote-write.ts";
import { ALL_ASC, sqliteMetricsStoresPerTest } from "../../helpers/temp-metrics-store.ts";

const stores = sqliteMetricsStoresPerTest("outpost-rw-warm-");
const T0 = Date.now() - 3_600_000;

/** Label sets as Prometheus sends them: sorted by name. */
const LABELS: Record<string, string>[] = [
  { __name__: "up", instance: "a:9100", job: "node" },
  { Method: "GET", __name__: "http_requests_total", code: "200", path: 'say "hi"\\now\nthen' },
  { __name__: "temperature", metric: "celsius", site: "日本 🙂" },
  // Stored with the tag exported_metric, as `metric` would be: the cache cannot tell, so it is mapped.
  { __name__: "odd", exported_metric: "x" },
];

function request(round: number): Uint8Array {
  return encodeWriteRequest(LABELS.map((labels, i) => ({ labels, samples: [[T0 + round * 1000, round * 10 + i]] as [number, number][] })));
}

async function send(store: SqliteMetricsStore, cache: RemoteWriteColumns, tenant: string, round: number): Promise<void> {
  const cols = cache.take();
  expect(decodeWriteColumns(request(round), cache.cache, cache.map, cache.validTimestamp, cols)).toBe(true);
  await writeRemoteColumns({ store, bus: new PointsBus() }, tenant, cols, "remote-write");
  cache.give(cols);
}

/** Every series of a tenant with its tags and points, in id order. */
async function contents(store: SqliteMetricsStore, tenant: string) {
  const out = [];
  for (const e of [...(await store.listSeries(tenant))].sort((a, b) => (a.id < b.id ? -1 : 1))) {
    const points = await store.readRaw(tenant, e.type, e.id, ALL_ASC);
    out.push({ type: e.type, id: e.id, tags: { ...e.tags }, ts: Array.from(points.ts), values: Array.from(points.values as ArrayLike<number>) });
  }
  return out;
}

describe("remote write's cache filled from the store", () => {
  it("ends with the same series, tags and points as mapping every label set anew", async () => {
    const cold = await stores.open({ synchronous: "NORMAL" });
    const first = await stores.open({ synchronous: "NORMAL" });
    const dir = stores.dir;
    for (const s of [cold, first]) {
      const cache = new RemoteWriteColumns();
      await send(s, cache, "a", 1);
      await s.write("a", [{ type: "gauge", id: "plain", points: [{ timestamp: T0, value: 1 }] }]);
    }
    // The second store restarts and fills a new cache from what it stored; the first maps anew.
    await first.close();
    const warmed = await openSqliteMetricsStore({ dataDir: dir, synchronous: "NORMAL" });
    try {
      const warm = new RemoteWriteColumns();
      expect(warm.warm("a", await warmed.listSeries("a"), warmed.definitionsVersion())).toBe(3);
      expect(warm.cache.size).toBe(3);
      const anew = new RemoteWriteColumns();
      await send(cold, anew, "a", 2);
      await send(warmed, warm, "a", 2);
      // Only the label set it could not tell apart was mapped.
      expect(warm.cache.size).toBe(4);
      // A tag changed by hand, then the series sent again; another tenant sends the same series.
      for (const [s, cache] of [
        [cold, anew],
        [warmed, warm],
      ] as const) {
        await s.updateTags("a", "gauge", 'up{instance="a:9100",job="node"}', { team: "ops" });
        await send(s, cache, "a", 3);
        await send(s, cache, "b", 4);
      }
      expect(await contents(warmed, "a")).toEqual(await contents(cold, "a"));
      expect(await contents(warmed, "b")).toEqual(await contents(cold, "b"));
      const a = await contents(warmed, "a");
      expect(a.map((s) => s.id)).toEqual([
        'http_requests_total{Method="GET",code="200",path="say \\"hi\\"\\\\now\\nthen"}',
        'odd{exported_metric="x"}',
        "plain",
        'temperature{metric="celsius",site="日本 🙂"}',
        'up{instance="a:9100",job="node"}',
      ]);
      expect(a.find((s) => s.id.startsWith("temperature"))?.tags).toEqual({ metric: "temperature", exported_metric: "celsius", site: "日本 🙂" });
      expect(a.find((s) => s.id.startsWith("up"))?.values).toEqual([10, 20, 30]);
      expect((await contents(warmed, "b")).map((s) => s.values)).toEqual([[41], [43], [42], [40]]);
    } finally {
      await warmed.close();
    }
  });

  it("fills at most half the cache, and none of another type or without a metric name", async () => {
    const store = await stores.open({ synchronous: "NORMAL" });
    const many: SeriesEntry[] = Array.from({ length: 10 }, (_, i) => ({ type: "gauge" as const, id: `m{i="${i}"}`, tags: { metric: "m", i: String(i) } }));
    const others: SeriesEntry[] = [
      { type: "counter" as const, id: 'c{i="1"}', tags: { metric: "c", i: "1" } },
      { type: "gauge" as const, id: "g", tags: { i: "1" } },
      { type: "gauge" as const, id: 'e{i=""}', tags: { metric: "e", i: "" } },
    ];
    const small = new RemoteWriteColumns(8);
    expect(small.warm("t", [...others, ...many], store.definitionsVersion())).toBe(4);
    expect(small.cache.size).toBe(4);
    // The rest is left to series sent later.
    expect(new RemoteWriteColumns().warm("t", [...others, ...many], store.definitionsVersion())).toBe(10);
  });
});
