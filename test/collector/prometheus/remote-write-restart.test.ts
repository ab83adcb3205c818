/**
 * A restarted collector knows the series remote write sent before by their label bytes (its
 * cache filled from the store at start, issue 28): the self-metric says how many, the same
 * request after the restart finds them without mapping, and the points read back as sent.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { body, startTestCollector } from "../../helpers/collector.ts";
import { REMOTE_WRITE_HEADERS, remoteWriteBody } from "../../helpers/remote-write.ts";

const dir = mkdtempSync(join(tmpdir(), "outpost-rw-restart-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const T0 = Math.floor(Date.now() / 60_000) * 60_000 - 3_600_000;

const LABELS: Record<string, string>[] = [
    { __name__: "node_load1", instance: "a:9100", job: "node" },
    { __name__: "node_load1", instance: "b:9100", job: "node" },
    { __name__: "http_requests_total", code: "500", job: "api" },
    // Stored as exported_metric, which a `metric` label also becomes: left to the mapping.
    { __name__: "odd", exported_metric: "x" },
];
const series = (round: number) => LABELS.map((labels, i) => ({ labels, samples: [[T0 + round * 15_000, round * 10 + i]] as [number, number][] }));

async function cached(c: { url: string }): Promise<number> {
  const text = await (await fetch(`${c.url}/metrics`)).text();
  return Number(/^outpost_collector_remote_write_cached_series (\d+)/m.exec(text)?.[1]);
}

describe("remote write after a restart", () => {
  test("finds the series it stored by their label bytes", async () => {
    const first = await startTestCollector({}, dir);
    const post = (c: typeof first, round: number) => c.req("/prometheus/rw/api/v1/write", { method: "POST", tenant: null, headers: REMOTE_WRITE_HEADERS, body: remoteWriteBody(series(round)) });
    expect((await post(first, 0)).status).toBe(204);
    expect(await cached(first)).toBe(4);
    await first.close();
    const again = await startTestCollector({}, dir);
    try {
      expect(await cached(again)).toBe(3);
      expect((await post(again, 1)).status).toBe(204);
      expect(await cached(again)).toBe(4);
      const q = new URLSearchParams({ query: "node_load1", start: String(T0 / 1000), end: String((T0 + 15_000) / 1000), step: "15" });
      const res = (await body(await again.req(`/prometheus/rw/api/v1/query_range?${q}`, { tenant: null }))).data.result;
      expect(res).toEqual([
        { metric: { __name__: "node_load1", instance: "a:9100", job: "node" }, values: [[T0 / 1000, "0"], [(T0 + 15_000) / 1000, "10"]] },
        { metric: { __name__: "node_load1", instance: "b:9100", job: "node" }, values: [[T0 / 1000, "1"], [(T0 + 15_000) / 1000, "11"]] },
      ]);
    } finally {
      await again.close();
    }
  });
});
