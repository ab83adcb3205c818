#!/usr/bin/env bun
/**
 * `npm run screenshots:console`: the PNG files of docs/console/, taken in Debian's headless
 * Chromium from a real collector and a real agent, plus a fleet of simulated feeds written
 * through the HTTP interfaces (presence, the agents' own metrics, a month of CPU, triggers and
 * alerts), so every page shows what a working installation shows. Rerun it after changing the
 * console; look at the files before committing them.
 */
import { mkdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Page } from "playwright-core";
import { writeTestAuthFile } from "../helpers/auth.ts";
import { freePort, waitFor } from "../helpers/ports.ts";
import { launchBrowser } from "./browser.ts";
import { BUN, Proc, System, waitHealthy } from "./harness.ts";

const OUT = resolve("docs/console");
const TENANT = "acme";
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const now = Math.floor(Date.now() / 10_000) * 10_000;

const SITES = ["berlin", "lyon", "porto", "oslo", "turin", "ghent", "brno", "cork", "lund", "graz", "bilbao", "tartu"];
const feeds = SITES.flatMap((site, i) => [`edge-${site}-01`, ...(i % 3 === 0 ? [`pos-${site}-${110 + i}`] : [])]);
const OFFLINE = new Set(["edge-lyon-01", "pos-graz-119"]);

let url = "";
async function call(method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${url}${path}`, { method, headers: { "Svc-Tenant": TENANT, "Content-Type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  if (res.status >= 300 && res.status !== 204) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.status === 204 || res.headers.get("Content-Length") === "0" ? undefined : res.json().catch(() => undefined);
}

/** A daily rhythm with slower and quicker swings, per feed. */
function cpuAt(t: number, k: number): number {
  const day = Math.sin(((t / DAY) % 1) * 2 * Math.PI - 1.2 + k) * 18;
  const noise = Math.sin(t / (2.3 * HOUR) + k * 3) * 5 + Math.sin(t / (17 * MIN) + k) * 3 + Math.sin(t / 70_000 + 2 * k) * 2;
  return Math.max(1, Math.min(99, 32 + k * 2.5 + day + noise));
}

async function seedFleet(): Promise<void> {
  for (const [k, f] of feeds.entries()) {
    const offline = OFFLINE.has(f);
    const wentDown = now - (k % 2 ? 47 : 190) * MIN;
    const last = offline ? wentDown : now - 4000;
    await call("POST", `/svc/metrics/availability/${encodeURIComponent(`${f}:outpost_agent_up`)}/raw`, [
      { timestamp: now - 9 * DAY - k * HOUR, value: "up" },
      { timestamp: now - 2 * DAY - k * 7 * MIN, value: "down" },
      { timestamp: now - 2 * DAY - k * 7 * MIN + 25 * MIN, value: "up" },
      ...(offline ? [{ timestamp: wentDown, value: "down" }] : []),
    ]);
    // A month of CPU every 5 minutes, the last hour every 10 s.
    const cpu: { timestamp: number; value: number }[] = [];
    for (let t = now - 30 * DAY; t < now - HOUR; t += 5 * MIN) if (t <= last) cpu.push({ timestamp: t, value: cpuAt(t, k) });
    for (let t = now - HOUR; t <= last; t += 10_000) cpu.push({ timestamp: t, value: cpuAt(t, k) });
    const buffered = offline ? 18_000 + k * 731 : k % 5 === 2 ? 1200 : 0;
    // Kept for 40 days (the default is 7), so the month view has a month.
    await call("POST", "/svc/metrics/gauges", { id: `${f}:cpu_usage_percent:total`, dataRetention: 40 });
    const gauges = [
      { id: `${f}:cpu_usage_percent:total`, dataPoints: cpu },
      { id: `${f}:memory_used_percent`, dataPoints: cpu.filter((_, i) => i % 3 === 0).map((p) => ({ timestamp: p.timestamp, value: 40 + (p.value % 17) })) },
      { id: `${f}:outpost_agent_buffer_points`, dataPoints: [{ timestamp: last, value: buffered }] },
      { id: `${f}:outpost_agent_buffer_oldest_age_seconds`, dataPoints: [{ timestamp: last, value: buffered ? (offline ? 4 : 1) * 60 + k * 13 : 0 }] },
    ];
    await call("POST", "/svc/metrics/gauges/raw", gauges);
    const rx: { timestamp: number; value: number }[] = [];
    let bytes = 1e9 * (k + 1);
    for (let t = now - DAY; t <= last; t += MIN) rx.push({ timestamp: t, value: Math.round((bytes += 2e6 + cpuAt(t, k) * 9e4)) });
    await call("POST", "/svc/metrics/counters/raw", [
      { id: `${f}:network_receive_bytes_total:eth0`, dataPoints: rx },
      { id: `${f}:outpost_agent_points_dropped_size_total`, dataPoints: [{ timestamp: last, value: f === "pos-berlin-110" ? 3200 : 0 }] },
      { id: `${f}:outpost_agent_points_dropped_age_total`, dataPoints: [{ timestamp: last, value: 0 }] },
      { id: `${f}:outpost_agent_points_dropped_rejected_total`, dataPoints: [{ timestamp: last, value: 0 }] },
    ]);
  }
  const inventory = feeds.map((f, k) => ({ id: f, name: `${f.replace(/-\d+$/, "")}.example.net`, properties: { agentVersion: k % 4 === 1 ? "0.1.0" : "0.2.0" } }));
  await call("POST", "/svc/inventory/bulk", { "/": { feed: inventory } });
}

async function seedAlerts(): Promise<void> {
  const trigger = (id: string, name: string, severity: string, description: string, condition: object, extra: object = {}) =>
    call("POST", "/svc/alerts/triggers/trigger", { trigger: { id, name, severity, description, enabled: true, ...extra }, conditions: [{ triggerMode: "FIRING", ...condition }] });
  await trigger("cpu-berlin", "CPU high on edge-berlin-01", "CRITICAL", "CPU above 90 % of all cores", { type: "THRESHOLD", dataId: "edge-berlin-01:cpu_usage_percent:total", operator: "GT", threshold: 90 });
  await trigger("lyon-down", "Agent offline: edge-lyon-01", "HIGH", "The agent's connection is down", { type: "AVAILABILITY", dataId: "edge-lyon-01:outpost_agent_up", operator: "DOWN" });
  await trigger("buffer-porto", "Buffer growing on edge-porto-01", "MEDIUM", "More than 1,000 points wait on the agent", { type: "THRESHOLD", dataId: "edge-porto-01:outpost_agent_buffer_points", operator: "GT", threshold: 1000 });
  await trigger("disk-oslo", "Disk filling on edge-oslo-01", "LOW", "Root filesystem above 80 %", { type: "THRESHOLD", dataId: "edge-oslo-01:filesystem_used_percent:root", operator: "GT", threshold: 80 });
  await trigger("mem-turin", "Memory pressure on edge-turin-01", "MEDIUM", "Memory above 95 %", { type: "THRESHOLD", dataId: "edge-turin-01:memory_used_percent", operator: "GT", threshold: 95 }, { enabled: false });
  const fire = (id: string, value: number | string, at = Date.now()) => call("POST", "/svc/alerts/data", [{ id, timestamp: at, value }]);
  for (let i = 0; i < 3; i++) {
    await fire("edge-berlin-01:cpu_usage_percent:total", 93 + i * 2);
    await Bun.sleep(1100);
  }
  await fire("edge-lyon-01:outpost_agent_up", "DOWN");
  await fire("edge-porto-01:outpost_agent_buffer_points", 1200);
  await fire("edge-oslo-01:filesystem_used_percent:root", 84.2);
  const alerts = (await call("GET", "/svc/alerts?thin=true")) as { id: string; trigger: { id: string } }[];
  const of = (t: string) => alerts.filter((a) => a.trigger.id === t).map((a) => a.id);
  const berlin = of("cpu-berlin");
  await call("PUT", `/svc/alerts/ack/${encodeURIComponent(berlin[0]!)}?ackBy=maria&ackNotes=${encodeURIComponent("Backup job running, watching it")}`);
  await call("PUT", `/svc/alerts/resolve/${encodeURIComponent(berlin[2]!)}?resolvedBy=maria&resolvedNotes=${encodeURIComponent("Job finished")}`);
  await call("PUT", `/svc/alerts/note/${encodeURIComponent(of("lyon-down")[0]!)}?user=tom&text=${encodeURIComponent("Site reports a power cut")}`);
  await call("PUT", `/svc/alerts/ack/${encodeURIComponent(of("lyon-down")[0]!)}?ackBy=tom`);
}

/**
 * The real agent has run for seconds only: an hour before it is filled in for each of its
 * metrics (gauges swinging around their first real value, counters rising to theirs), so its
 * inventory's charts show what an agent that has run a while shows. Its inventory is its own.
 */
async function backfillAgent(): Promise<void> {
  const metrics = (await call("GET", "/svc/inventory/traversal/f;web-1/recursive;over=contains/type=m")) as { id: string; type?: { metricDataType?: string } }[];
  for (const [k, m] of metrics.entries()) {
    const kind = m.type?.metricDataType === "counter" ? "counter" : "gauge";
    const path = `/svc/metrics/${kind === "counter" ? "counters" : "gauges"}/${encodeURIComponent(m.id)}/raw`;
    const first = ((await call("GET", `${path}?order=ASC&limit=2`)) as { timestamp: number; value: number }[] | undefined) ?? [];
    if (first.length === 0) continue;
    const [a, b] = first;
    const rate = b && b.timestamp > a!.timestamp ? Math.max(0, (b.value - a!.value) / (b.timestamp - a!.timestamp)) : 0;
    const points: { timestamp: number; value: number }[] = [];
    for (let t = a!.timestamp - HOUR; t < a!.timestamp - 5000; t += 10_000) {
      const wave = Math.sin(t / (9 * MIN) + k) * 0.12 + Math.sin(t / 47_000 + 2 * k) * 0.05;
      const gauge = Math.max(0, a!.value * (1 + wave));
      points.push({ timestamp: t, value: kind === "counter" ? Math.max(0, Math.round(a!.value - rate * (a!.timestamp - t))) : m.id.includes("percent") ? Math.min(100, gauge) : gauge });
    }
    await call("POST", path, points);
  }
}

async function shoot(page: Page, name: string, ready: string, prepare?: () => Promise<void>): Promise<void> {
  await page.locator(ready).first().waitFor({ timeout: 30_000 });
  await prepare?.();
  // Charts and fonts settle.
  await page.waitForTimeout(700);
  await page.screenshot({ path: join(OUT, `${name}.png`) });
  console.error(`docs/console/${name}.png`);
}

mkdirSync(OUT, { recursive: true });
const sys = new System({ broker: "embedded", tenant: TENANT, feed: "web-1", agentArgs: ["--host-interval", "2s"] });
let login: Proc | undefined;
let loginDir: string | undefined;
const browser = await launchBrowser({ width: 1440, height: 900 });
try {
  await sys.start();
  url = sys.collectorUrl;
  await seedFleet();
  await seedAlerts();
  // The real agent: its inventory and a few minutes' worth of its host metrics.
  await waitFor("the agent's inventory", async () => ((await call("GET", "/svc/inventory/traversal/f;web-1/type=r")) as unknown[] | undefined)?.length ? true : undefined, 30_000, 500);
  await Bun.sleep(20_000);
  await backfillAgent();

  const page = await browser.page();
  const go = (hash: string) => page.goto(`${url}/?tenant=${TENANT}${hash}`);
  await go("#/fleet");
  await shoot(page, "fleet", 'tr[data-feed="edge-lyon-01"]');
  const charted = (refs: string[]) => refs.map((m) => `&m=${encodeURIComponent(m)}`).join("");
  await go(
    `#/metrics?range=24h&id=cpu_usage_percent%3Atotal${charted([
      "gauge:edge-berlin-01:cpu_usage_percent:total",
      "gauge:edge-porto-01:cpu_usage_percent:total",
      "gauge:edge-oslo-01:cpu_usage_percent:total",
      "counter:edge-berlin-01:network_receive_bytes_total:eth0",
      "availability:edge-lyon-01:outpost_agent_up",
      "availability:edge-berlin-01:outpost_agent_up",
    ])}`,
  );
  await shoot(page, "metrics", ".uplot[data-points]", async () => {
    await page.locator(".list .item").first().waitFor();
  });
  // The counter and availability charts below the gauges.
  await page.evaluate("window.scrollTo(0, 560)");
  await shoot(page, "metrics-availability", ".strip[data-segments]");
  await go(`#/metrics?range=30d${charted(["gauge:edge-berlin-01:cpu_usage_percent:total", "gauge:edge-ghent-01:cpu_usage_percent:total"])}`);
  await shoot(page, "metrics-month", ".uplot[data-points]");
  await go("#/alerts?status=OPEN,ACKNOWLEDGED,RESOLVED");
  await shoot(page, "alerts", "tr[data-alert]", async () => {
    await page.locator("tr[data-alert] button[aria-expanded]").nth(1).click();
  });
  await go("#/alerts/triggers");
  await shoot(page, "triggers", "tr[data-trigger]");
  await go("#/alerts/triggers/cpu-berlin");
  await shoot(page, "trigger-history", '[aria-label="Trigger history"] li');
  await go("#/inventory/web-1");
  await shoot(page, "inventory", "section[data-metric] .uplot[data-points]");
  await page.close();

  const dark = await launchBrowser({ width: 1440, height: 900, colorScheme: "dark" });
  try {
    const p = await dark.page();
    await p.goto(`${url}/?tenant=${TENANT}#/fleet`);
    await shoot(p, "fleet-dark", 'tr[data-feed="edge-lyon-01"]');
    await p.goto(`${url}/?tenant=${TENANT}#/alerts/triggers/cpu-berlin`);
    await shoot(p, "trigger-history-dark", '[aria-label="Trigger history"] li');
    if (dark.problems.length) throw new Error(dark.problems.join("\n"));
  } finally {
    await dark.close();
  }

  // The login form of a collector with an auth file.
  const auth = await writeTestAuthFile([{ name: "maria", password: "maria-pw", tenants: [TENANT] }]);
  loginDir = auth.dir;
  const port = await freePort();
  login = new Proc("login-collector", [BUN, "collector/main.ts", "--http-port", String(port), "--mqtt-port", "0", "--data-dir", join(auth.dir, "data"), "--auth-file", auth.path], auth.dir);
  login.start();
  await waitHealthy(`http://127.0.0.1:${port}`, login);
  const lp = await browser.page();
  await lp.goto(`http://127.0.0.1:${port}/`);
  await lp.fill("#login-user", "maria");
  await shoot(lp, "login", "#login-password");
  if (browser.problems.length) throw new Error(browser.problems.join("\n"));
} finally {
  await browser.close();
  await login?.kill("SIGTERM");
  if (loginDir) rmSync(loginDir, { recursive: true, force: true });
  await sys.stop();
}
