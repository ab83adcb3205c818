#!/usr/bin/env bun
/**
 * The console's metrics page drawing a month: SERIES gauges (default 3) of 30 days of 10 s
 * points each (259,200 points a series), in Debian's headless Chromium against a collector
 * process. Over RUNS fresh page loads (default 5) per range: navigation → chart painted with
 * its points, for 30 days and 7 days (bucketed stats, 300 buckets) and 1 hour (raw points);
 * and the stats request alone. Env: SERIES, RUNS.
 */
import type { Page } from "playwright-core";
import { type Browser, launchBrowser, type PageGlobals } from "../test/e2e/browser.ts";
import { medianMax, paintedAt } from "./_browser.ts";
import { fmt, latency, row, startCollectorProcess, tempDir } from "./_lib.ts";

const SERIES = Number(process.env.SERIES ?? 3);
const RUNS = Number(process.env.RUNS ?? 5);
const TENANT = "bench";
const HEADERS = { "Content-Type": "application/json", "Svc-Tenant": TENANT };
const DAY = 86_400_000;
const STEP = 10_000;

const ids = Array.from({ length: SERIES }, (_, i) => `edge-${i}:cpu_usage_percent:total`);

async function seed(url: string, now: number): Promise<number> {
  let points = 0;
  for (const [k, id] of ids.entries()) {
    // Kept 40 days: the default retention (7) would cut the month.
    await fetch(`${url}/svc/metrics/gauges`, { method: "POST", headers: HEADERS, body: JSON.stringify({ id, dataRetention: 40 }) });
    for (let from = now - 30 * DAY; from < now; from += DAY) {
      const dataPoints = [];
      for (let t = from; t < Math.min(now, from + DAY); t += STEP) dataPoints.push({ timestamp: t, value: 40 + 25 * Math.sin(t / 7_200_000 + k) + 10 * Math.sin(t / 300_000) });
      const res = await fetch(`${url}/svc/metrics/gauges/raw`, { method: "POST", headers: HEADERS, body: JSON.stringify([{ id, dataPoints }]) });
      if (res.status !== 200) throw new Error(`seed: ${res.status} ${await res.text()}`);
      points += dataPoints.length;
    }
  }
  return points;
}

/** One fresh load: the page's clock (0 = navigation start) when the chart holds its points and is painted. */
async function measure(browser: Browser, url: string, range: string): Promise<number> {
  const page: Page = await browser.page();
  await page.goto(`${url}/?tenant=${TENANT}#/metrics?range=${range}${ids.map((id) => `&m=${encodeURIComponent(`gauge:${id}`)}`).join("")}`, { waitUntil: "commit" });
  await page.waitForFunction(() => Number((globalThis as unknown as PageGlobals).document.querySelector(".uplot")?.getAttribute("data-points")) > 0, undefined, { polling: "raf", timeout: 30_000 });
  const painted = await paintedAt(page);
  await page.close();
  return painted;
}

const dir = tempDir("outpost-bench-console-metrics-");
const { proc, url } = await startCollectorProcess(["--data-dir", dir.path, "--mqtt-port", "0", "--synchronous", "NORMAL"]);
let browser: Browser | undefined;
try {
  const now = Date.now();
  const a = performance.now();
  const points = await seed(url, now);
  row(`seeded ${SERIES} series × 30 days of 10 s points`, `${fmt(points)} points in ${fmt((performance.now() - a) / 1000, 1)} s`);
  const stats = await latency(
    () => fetch(`${url}/svc/metrics/gauges/${encodeURIComponent(ids[0]!)}/stats?start=${Date.now() - 30 * DAY}&end=${Date.now()}&buckets=300`, { headers: HEADERS }).then((r) => r.arrayBuffer()),
    10,
    2,
  );
  row("GET …/stats of one series, 30 days in 300 buckets", `p50 ${fmt(stats.p50, 1)} ms, p99 ${fmt(stats.p99, 1)} ms`);

  browser = await launchBrowser();
  await measure(browser, url, "1h"); // the first load of a collector run from source bundles the console
  for (const [range, label] of [
    ["30d", `30 days, ${SERIES} series (bucketed, ${fmt((SERIES * 30 * DAY) / STEP)} points behind)`],
    ["7d", "7 days (bucketed)"],
    ["1h", `1 hour (raw, ${fmt((SERIES * 3_600_000) / STEP)} points)`],
  ] as const) {
    const runs: number[] = [];
    for (let i = 0; i < RUNS; i++) runs.push(await measure(browser, url, range));
    row(`navigation → chart painted: ${label}`, medianMax(runs));
  }
  if (browser.problems.length) throw new Error(`the page reported problems: ${browser.problems.join("; ")}`);
} finally {
  await browser?.close();
  proc.kill();
  await proc.exited;
  dir.remove();
}
