import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startAgent } from "../../agent/agent.ts";
import { PointBuffer } from "../../agent/buffer/point-buffer.ts";
import type { MetricWrite } from "../../src/metrics/model.ts";
import { STALE_NAN } from "../../src/prometheus/staleness.ts";
import { createEncoder } from "../../src/protocol/cbor.ts";
import { CHUNK_FORMAT, MARKERS_FLAG } from "../../src/protocol/series-chunk.ts";
import { openDatabase } from "../../src/sqlite/open.ts";
import { startTestCollector } from "../helpers/collector.ts";
import { freePort, waitFor } from "../helpers/ports.ts";

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

const N = 3000;

describe("agent → collector forwarding of compacted backlog", () => {
  it("compacts an outage's backlog, sends it as series chunks, and the collector stores every point once", async () => {
    const dir = mkdtempSync(join(tmpdir(), "outpost-fwd-compact-"));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    // An outage of two hours ago: 3,000 samples of three series, buffered one write per sample.
    const from = Date.now() - 2 * 3_600_000;
    const old = new PointBuffer(openDatabase(join(dir, "buffer.db")), { tenant: "t1", feed: "edge-1" }, { maxBytes: 1e9, maxAgeMs: 86_400_000, chunkPoints: 5000 }, createEncoder(), {}, () => from + 1000, 0);
    for (let i = 0; i < N; i += 100) {
      const writes: MetricWrite[] = [];
      for (let k = i; k < i + 100; k++) {
        writes.push({ type: "gauge", id: "g", points: [{ timestamp: from + k, value: k / 8 }] });
        writes.push({ type: "availability", id: "a", points: [{ timestamp: from + k, value: k % 10 ? "up" : "down" }] });
        writes.push({ type: "string", id: "s", points: [{ timestamp: from + k, value: `line ${k % 7}`, ...(k % 2 ? {} : { tags: { even: "yes" } }) }] });
      }
      await old.append(writes);
    }
    old.close();

    const port = await freePort();
    const agent = await startAgent({ broker: `mqtt://127.0.0.1:${port}`, tenant: "t1", feed: "edge-1", "data-dir": dir, listen: "", "log-level": "error", interval: 200, "reconnect-min": 200, "reconnect-max": 500, "host-metrics": false });
    cleanup.push(() => agent.stop());
    // No broker yet: the agent compacts the backlog on its first tick.
    const formats = () => {
      const db = new Database(join(dir, "buffer.db"), { readonly: true });
      // The backlog's rows: acknowledged ones stay in `chunks` for the local window (agent/buffer/acked-ranges.ts).
      const r = db.query("SELECT fmt, sum(n) AS n FROM chunks c WHERE enq < ? AND NOT EXISTS (SELECT 1 FROM acked WHERE c.id BETWEEN lo AND hi) GROUP BY fmt").all(from + 2000) as { fmt: number; n: number }[];
      db.close();
      return r;
    };
    expect(await waitFor("compacted backlog", async () => (formats().length === 1 && formats()[0]!.fmt === 2 ? formats() : undefined))).toEqual([{ fmt: 2, n: 3 * N }]);

    const col = await startTestCollector({ "mqtt-port": port, "mqtt-host": "127.0.0.1" } as never);
    cleanup.push(() => col.close());
    const read = async (path: string) => {
      const res = await col.req(`/svc/metrics/${path}/raw?start=0&end=${Date.now()}&order=ASC&limit=100000`);
      return res.status === 200 ? ((await res.json()) as { timestamp: number; value: unknown; tags?: Record<string, string> }[]) : [];
    };
    const gauge = await waitFor("backlog stored", async () => {
      const g = await read("gauges/g");
      return g.length >= N ? g : undefined;
    });
    expect(gauge.map((p) => [p.timestamp, p.value])).toEqual(Array.from({ length: N }, (_, k) => [from + k, k / 8]));
    const avail = await read("availability/a");
    expect(avail.map((p) => p.value)).toEqual(Array.from({ length: N }, (_, k) => (k % 10 ? "up" : "down")));
    const strs = await read("strings/s");
    expect(strs).toHaveLength(N);
    expect(strs[4]).toMatchObject({ timestamp: from + 4, value: "line 4", tags: { even: "yes" } });
    expect(strs[5]!.tags).toBeUndefined();
    // Acknowledged: the compacted rows leave the backlog.
    await waitFor("backlog acked", async () => (formats().length === 0 ? true : undefined));
  }, 60_000);

  it("forwards staleness markers, compacted or live, in version 3 batches; the collector's PromQL sees the series end", async () => {
    const dir = mkdtempSync(join(tmpdir(), "outpost-fwd-stale-"));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const now = Date.now();
    const from = now - 2 * 3_600_000;
    const series = (id: string, t0: number, values: (number | "stale")[]): MetricWrite[] => [
      { type: "gauge", id, points: values.map((v, i) => ({ timestamp: t0 + i * 15_000, value: v === "stale" ? STALE_NAN : v })) },
    ];
    // An outage's backlog (compacted at the first tick) and a live row, both with a marker.
    const old = new PointBuffer(openDatabase(join(dir, "buffer.db")), { tenant: "t1", feed: "edge-1" }, { maxBytes: 1e9, maxAgeMs: 86_400_000, chunkPoints: 5000 }, createEncoder(), {}, () => from + 1000, 0);
    await old.append(series("backlog", from, [1, 2, 3, "stale", 5]));
    old.close();
    const live = new PointBuffer(openDatabase(join(dir, "buffer.db")), { tenant: "t1", feed: "edge-1" }, { maxBytes: 1e9, maxAgeMs: 86_400_000, chunkPoints: 5000 }, createEncoder(), {}, () => Date.now(), 0);
    await live.append(series("fresh", now - 45_000, [1, 2, "stale"]));
    live.close();

    const port = await freePort();
    const agent = await startAgent({ broker: `mqtt://127.0.0.1:${port}`, tenant: "t1", feed: "edge-1", "data-dir": dir, listen: "", "log-level": "error", interval: 200, "reconnect-min": 200, "reconnect-max": 500, "host-metrics": false });
    cleanup.push(() => agent.stop());
    // No broker yet: the backlog's row is compacted, its marker flag kept.
    const backlogFormat = () => {
      const db = new Database(join(dir, "buffer.db"), { readonly: true });
      const r = db.query("SELECT fmt FROM chunks WHERE enq < ?").all(from + 2000) as { fmt: number }[];
      db.close();
      return r.map((x) => x.fmt);
    };
    expect(await waitFor("compacted backlog", async () => (backlogFormat()[0] === (CHUNK_FORMAT.series | MARKERS_FLAG) ? backlogFormat() : undefined))).toEqual([CHUNK_FORMAT.series | MARKERS_FLAG]);
    const col = await startTestCollector({ "mqtt-port": port, "mqtt-host": "127.0.0.1" } as never);
    cleanup.push(() => col.close());
    const query = async (q: string, t: number) => {
      const res = await col.req(`/prometheus/t1/api/v1/query?${new URLSearchParams({ query: q, time: String(t / 1000) })}`, { tenant: null });
      return ((await res.json()) as { data: { result: { value: [number, string] }[] } }).data.result.map((r) => r.value[1]);
    };
    await waitFor("both series stored", async () => ((await query("backlog", from + 60_000)).length && (await query("fresh", now - 30_000)).length ? true : undefined));
    expect(await query("backlog", from + 44_000)).toEqual(["3"]);
    expect(await query("backlog", from + 46_000)).toEqual([]);
    expect(await query("backlog", from + 61_000)).toEqual(["5"]);
    expect(await query("fresh", now - 15_000 - 1)).toEqual(["2"]);
    expect(await query("fresh", now)).toEqual([]);
    // The Hawkular reads leave the markers out.
    const raw = (await (await col.req(`/svc/metrics/gauges/fresh/raw?start=0&end=${now + 1}&order=ASC`)).json()) as { value: number }[];
    expect(raw.map((p) => p.value)).toEqual([1, 2]);
  }, 60_000);
});
