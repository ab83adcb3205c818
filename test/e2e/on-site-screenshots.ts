#!/usr/bin/env bun
/**
 * The pictures of docs/console.md, "On site" (`npm run screenshots:console` runs this after the
 * console's): a real agent whose collector went away after acknowledging six hours of a pump's
 * data, its on-site login and its metrics page in Chromium.
 */
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Page } from "playwright-core";
import { waitFor } from "../helpers/ports.ts";
import { launchBrowser } from "./browser.ts";
import { System } from "./harness.ts";

const OUT = resolve("docs/console");
const FEED = "pump-station-4";
const TOKEN = "9f4c1e7a2b6d8035c1e4f7a9b2d6c803";
const HOUR = 3_600_000;
const now = Math.floor(Date.now() / 10_000) * 10_000;

const sys = new System({ broker: "embedded", tenant: "waterworks", feed: FEED, agentEnv: { OUTPOST_AGENT_API_TOKEN: TOKEN }, agentArgs: ["--host-interval", "2s"] });
const agent = (path: string, body: unknown) =>
  fetch(`${sys.agentUrl}${path}`, { method: "POST", headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" }, body: JSON.stringify(body) });
const agentMetric = async (name: string) => {
  const text = await (await fetch(`${sys.agentUrl}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } })).text();
  return Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1] ?? Number.NaN);
};

/** Six hours of a pump: outlet pressure, motor temperature, energy used, and the station's door. */
async function seed(from: number, to: number): Promise<void> {
  const pressure = [];
  const temperature = [];
  const energy = [];
  const cpu = [];
  let wh = 0;
  for (let t = 0; t < from - (now - 6 * HOUR); t += 10_000) wh += power(now - 6 * HOUR + t);
  for (let t = from; t < to; t += 10_000) {
    const running = power(t) > 0;
    pressure.push({ timestamp: t, value: running ? 4.1 + 0.25 * Math.sin(t / 170_000) + 0.05 * Math.sin(t / 23_000) : 0.4 });
    temperature.push({ timestamp: t, value: 38 + (running ? 14 : 2) * (1 - Math.exp(-((t - from) % (80 * 60_000)) / 900_000)) + 0.4 * Math.sin(t / 31_000) });
    wh += power(t);
    energy.push({ timestamp: t, value: Math.round(wh) });
    cpu.push({ timestamp: t, value: Math.max(1, 9 + 6 * Math.sin(t / 1_300_000) + 3 * Math.sin(t / 97_000)) });
  }
  for (const [path, points] of [
    [`/svc/metrics/gauges/${FEED}:outlet_pressure_bar/raw`, pressure],
    [`/svc/metrics/gauges/${FEED}:motor_temperature_celsius/raw`, temperature],
    [`/svc/metrics/counters/${FEED}:pump_energy_wh_total/raw`, energy],
    [`/svc/metrics/gauges/${FEED}:cpu_usage_percent:total/raw`, cpu],
  ] as const) {
    const r = await agent(path, points);
    if (r.status !== 200) throw new Error(`${path}: ${r.status} ${await r.text()}`);
  }
}

/** Watt-hours the pump uses in the 10 s from `t`: about 7.5 kW while it runs. */
function power(t: number): number {
  return Math.sin(t / (40 * 60_000)) > -0.3 ? (7500 + 400 * Math.sin(t / 210_000)) / 360 : 0;
}

async function shoot(page: Page, name: string, ready: string): Promise<void> {
  await page.locator(ready).first().waitFor({ timeout: 30_000 });
  await page.waitForTimeout(700);
  await page.screenshot({ path: join(OUT, `${name}.png`) });
  console.error(`docs/console/${name}.png`);
}

mkdirSync(OUT, { recursive: true });
const browser = await launchBrowser({ width: 1440, height: 900 });
try {
  await sys.start();
  const cut = now - 40 * 60_000;
  await seed(now - 6 * HOUR, cut);
  for (const [t, value] of [
    [now - 6 * HOUR, "up"],
    [now - 4 * HOUR, "down"],
    [now - 4 * HOUR + 12 * 60_000, "up"],
  ] as const) {
    await agent(`/svc/metrics/availability/${FEED}:station_door_closed/raw`, [{ timestamp: t, value }]);
  }
  await waitFor("the window to hold them", async () => ((await agentMetric("outpost_agent_history_points")) > 8000 ? true : undefined), 60_000, 500);
  // The collector goes; what follows waits on the agent.
  await sys.collector.kill("SIGKILL");
  await waitFor("the agent to notice", async () => ((await agentMetric("outpost_agent_broker_connected")) === 0 ? true : undefined), 20_000, 200);
  await seed(cut, now + 10_000);
  await agent(`/svc/metrics/availability/${FEED}:station_door_closed/raw`, [{ timestamp: now - 25 * 60_000, value: "down" }]);
  // A while into the outage, as a technician would find it.
  await Bun.sleep(30_000);

  const page = await browser.page();
  await page.goto(`${sys.agentUrl}/`);
  await page.fill("#login-token", "••••••••••••••••");
  await shoot(page, "on-site-login", "#login-token");
  await page.fill("#login-token", TOKEN);
  await page.getByRole("button", { name: "Log in" }).click();
  const charted = [
    `gauge:${FEED}:outlet_pressure_bar`,
    `gauge:${FEED}:motor_temperature_celsius`,
    `counter:${FEED}:pump_energy_wh_total`,
    `availability:${FEED}:station_door_closed`,
  ];
  await page.goto(`${sys.agentUrl}/#/metrics?range=6h&id=${encodeURIComponent("outlet|motor|energy|door")}${charted.map((m) => `&m=${encodeURIComponent(m)}`).join("")}`);
  await page.reload();
  await page.locator(".strip[data-segments]").waitFor();
  await shoot(page, "on-site", "[data-testid=on-site-banner][data-tone=offline] li");
  if (browser.problems.length) throw new Error(browser.problems.join("\n"));
} finally {
  await browser.close();
  await sys.stop();
}
