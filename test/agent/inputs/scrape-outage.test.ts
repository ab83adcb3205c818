/**
 * The collector goes away while the agent scrapes: every scraped sample is buffered and arrives
 * once when the collector is back (no gap, no duplicate), with its labels.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { body, startTestCollector, type TestCollector } from "../../helpers/collector.ts";
import { freePort, waitFor } from "../../helpers/ports.ts";
import { type InputsSystem, startInputsSystem } from "./system.ts";

const cleanup: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const c of cleanup.reverse()) await c();
});

describe("a collector outage during scraping", () => {
  test("every scraped sample arrives once afterwards", async () => {
    let served = 0;
    const exporter = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response(`outage_scrapes_total ${++served}\n`) });
    cleanup.push(() => exporter.stop(true));
    const dataDir = mkdtempSync(join(tmpdir(), "outpost-outage-"));
    cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const mqttPort = await freePort();
    const values = { "mqtt-port": mqttPort, "mqtt-host": "127.0.0.1" };
    let col: TestCollector = await startTestCollector(values, dataDir);
    const sys: InputsSystem = await startInputsSystem({ inputs: { prometheus: [{ job: "outage", targets: [`127.0.0.1:${exporter.port}`], interval: "1s", timeout: "500ms" }] } }, { mqttPort, collector: col });
    cleanup.push(() => sys.close());
    const id = `outage_scrapes_total{feed="${sys.feed}",instance="127.0.0.1:${exporter.port}",job="outage"}`;
    const values_ = async (c: TestCollector): Promise<number[]> => {
      const res = await c.req(`/svc/metrics/gauges/${encodeURIComponent(id)}/raw?start=0&order=ASC&limit=100000`, { tenant: sys.tenant });
      return res.status === 204 ? [] : (await body(res)).map((p: { value: number }) => p.value);
    };
    await waitFor("scrapes stored", async () => ((await values_(col)).length >= 2 ? true : undefined), 20_000, 100);

    await col.close();
    const down = served;
    await waitFor("5 scrapes while the collector is down", () => (served >= down + 5 ? true : undefined), 20_000, 100);

    col = await startTestCollector(values, dataDir);
    cleanup.unshift(() => col.close());
    const target = served + 2;
    const got = await waitFor(
      "the backlog and fresh scrapes",
      async () => {
        const v = await values_(col);
        return v.length > 0 && v[v.length - 1]! >= target ? v : undefined;
      },
      60_000,
      200,
    );
    // Scrape n served the value n: every one of them, once, in order.
    expect(got).toEqual(Array.from({ length: got.length }, (_, i) => i + 1));
    // Labels came back with the series (definitions are buffered with the points).
    const r = await body(await col.req(`/prometheus/${sys.tenant}/api/v1/query?query=outage_scrapes_total`, { tenant: null }));
    expect(r.data.result[0].metric).toMatchObject({ job: "outage", feed: sys.feed });
  }, 120_000);
});
