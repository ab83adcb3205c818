#!/usr/bin/env bun
/**
 * The console's fleet page with FEEDS feeds (default 1,000) in Debian's headless Chromium
 * against a collector process: each feed with presence (a tenth offline), the agent's own
 * metrics (buffer, oldest point, drops), an hour of CPU every 10 s and 40 more series, and an
 * inventory feed with its agent version. Measures, over RUNS fresh page loads (default 7):
 * navigation → the table painted, then a click on a sort header → re-sorted rows painted, and
 * typing a filter → filtered rows painted; and GET /svc/fleet/feeds alone. Env: FEEDS, RUNS.
 */
import type { Page } from "playwright-core";
import { type Browser, launchBrowser, type PageGlobals } from "../test/e2e/browser.ts";
import { medianMax, PAINTED, paintedAt } from "./_browser.ts";
import { fmt, latency, row, startCollectorProcess, tempDir } from "./_lib.ts";

const FEEDS = Number(process.env.FEEDS ?? 1000);
const RUNS = Number(process.env.RUNS ?? 7);
const TENANT = "bench";
const HEADERS = { "Content-Type": "application/json", "Svc-Tenant": TENANT };
const MIN = 60_000;

const feedId = (i: number) => `edge-${String(i).padStart(4, "0")}`;

async function post(url: string, body: unknown): Promise<void> {
  const res = await fetch(url, { method: "POST", headers: HEADERS, body: JSON.stringify(body) });
  if (res.status >= 300) throw new Error(`${url}: ${res.status} ${await res.text()}`);
}

/** What agents would have stored about themselves, written over HTTP in batches of 50 feeds. */
async function seed(url: string, now: number): Promise<number> {
  let points = 0;
  for (let first = 0; first < FEEDS; first += 50) {
    const gauges: { id: string; dataPoints: { timestamp: number; value: number }[] }[] = [];
    const counters: typeof gauges = [];
    const availability: { id: string; dataPoints: { timestamp: number; value: string }[] }[] = [];
    for (let i = first; i < Math.min(FEEDS, first + 50); i++) {
      const f = feedId(i);
      const offline = i % 10 === 3;
      availability.push({
        id: `${f}:outpost_agent_up`,
        dataPoints: [
          { timestamp: now - 300 * MIN + i, value: "up" },
          ...(offline ? [{ timestamp: now - (5 + (i % 50)) * MIN, value: "down" }] : []),
        ],
      });
      const last = offline ? now - (6 + (i % 50)) * MIN : now - 5000;
      const buffered = offline ? 1000 + i * 7 : i % 4 === 0 ? i % 90 : 0;
      gauges.push({ id: `${f}:outpost_agent_buffer_points`, dataPoints: [{ timestamp: last, value: buffered }] });
      gauges.push({ id: `${f}:outpost_agent_buffer_oldest_age_seconds`, dataPoints: [{ timestamp: last, value: buffered ? 30 + (i % 600) : 0 }] });
      for (const [name, v] of [
        ["size", i % 97 === 0 ? 120 : 0],
        ["age", 0],
        ["rejected", i % 211 === 0 ? 3 : 0],
      ] as const) {
        counters.push({ id: `${f}:outpost_agent_points_dropped_${name}_total`, dataPoints: [{ timestamp: last, value: v }] });
      }
      const cpu = [];
      for (let t = now - 60 * MIN; t <= last; t += 10_000) cpu.push({ timestamp: t, value: 20 + 15 * Math.sin(t / 400_000 + i) + (i % 7) * 5 });
      gauges.push({ id: `${f}:cpu_usage_percent:total`, dataPoints: cpu });
      for (let k = 0; k < 40; k++) gauges.push({ id: `${f}:host_metric_${k}`, dataPoints: [{ timestamp: last, value: k }] });
      points += 2 + cpu.length + 40 + 3 + availability.at(-1)!.dataPoints.length;
    }
    await post(`${url}/svc/metrics/gauges/raw`, gauges);
    await post(`${url}/svc/metrics/counters/raw`, counters);
    await post(`${url}/svc/metrics/availability/raw`, availability);
  }
  const feeds = Array.from({ length: FEEDS }, (_, i) => ({ id: feedId(i), name: `host-${i}.example.net`, properties: { agentVersion: i % 5 === 0 ? "0.1.0" : "0.2.0" } }));
  await post(`${url}/svc/inventory/bulk`, { "/": { feed: feeds } });
  return points;
}

interface Run {
  rendered: number;
  sorted: number;
  filtered: number;
}

/**
 * One fresh load of the fleet page, timed by the page's own clock: until the table holds every
 * feed (aria-rowcount) and its rows on screen are painted; then a click on a sort header until
 * the re-sorted rows are painted; then typing a filter until the filtered rows are painted.
 */
async function measure(browser: Browser, url: string): Promise<Run> {
  const page: Page = await browser.page();
  await page.goto(`${url}/?tenant=${TENANT}#/fleet`, { waitUntil: "commit" });
  await page.waitForFunction((n) => {
    const d = (globalThis as unknown as PageGlobals).document;
    return d.querySelector(`table[aria-rowcount="${n + 1}"]`) !== null && d.querySelector("tbody tr[data-feed]") !== null;
  }, FEEDS, { polling: "raf", timeout: 30_000 });
  const rendered = await paintedAt(page);
  const sorted = Number(
    await page.evaluate(`(async () => {
      const first = () => document.querySelector("tbody tr[data-feed]")?.getAttribute("data-feed");
      const before = first();
      const button = [...document.querySelectorAll("th button")].find((b) => b.textContent.startsWith("Feed"));
      const t0 = performance.now();
      button.click();
      while (first() === before) await new Promise((r) => requestAnimationFrame(r));
      return (await ${PAINTED}) - t0;
    })()`),
  );
  // Typing a filter that keeps one feed in a hundred.
  const t0 = Number(await page.evaluate("performance.now()"));
  await page.fill("#fleet-filter", "edge-00");
  await page.waitForFunction(() => Number((globalThis as unknown as PageGlobals).document.querySelector("table[aria-rowcount]")?.getAttribute("aria-rowcount")) <= 101, undefined, { polling: "raf" });
  const filtered = (await paintedAt(page)) - t0;
  await page.close();
  return { rendered, sorted, filtered };
}

const dir = tempDir("outpost-bench-console-");
const { proc, url } = await startCollectorProcess(["--data-dir", dir.path, "--mqtt-port", "0", "--synchronous", "NORMAL"]);
let browser: Browser | undefined;
try {
  const now = Date.now();
  const a = performance.now();
  const points = await seed(url, now);
  row(`seeded ${fmt(FEEDS)} feeds`, `${fmt(points)} points, ${fmt(FEEDS * 47)} series in ${fmt((performance.now() - a) / 1000, 1)} s`);

  const summary = await fetch(`${url}/svc/fleet/feeds`, { headers: HEADERS });
  const bytes = (await summary.arrayBuffer()).byteLength;
  const api = await latency(async () => (await fetch(`${url}/svc/fleet/feeds`, { headers: HEADERS })).arrayBuffer(), 20, 3);
  row("GET /svc/fleet/feeds (1 h CPU in 30 buckets per feed)", `p50 ${fmt(api.p50, 1)} ms, p99 ${fmt(api.p99, 1)} ms, ${fmt(bytes / 1024)} KiB`);

  browser = await launchBrowser();
  // The first page load of a collector run from source bundles the console: not counted.
  await measure(browser, url);
  const runs: Run[] = [];
  for (let i = 0; i < RUNS; i++) runs.push(await measure(browser, url));
  if (browser.problems.length) throw new Error(`the page reported problems: ${browser.problems.join("; ")}`);
  const stat = (pick: (r: Run) => number) => medianMax(runs.map(pick));
  row(`navigation → table of ${fmt(FEEDS)} feeds painted (${RUNS} loads)`, stat((r) => r.rendered));
  row("click on a sort header → re-sorted rows painted", stat((r) => r.sorted));
  row("navigation → painted and a sort answered (interactive)", stat((r) => r.rendered + r.sorted));
  row("typing a filter → filtered rows painted", stat((r) => r.filtered));
} finally {
  await browser?.close();
  proc.kill();
  await proc.exited;
  dir.remove();
}
