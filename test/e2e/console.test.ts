/**
 * The web console in a real browser (Debian's Chromium through playwright-core) against a real
 * collector and a real agent: the fleet shows the agent and follows it going offline, a chart
 * draws its points and zooms, an alert fired by a trigger is acknowledged, noted and resolved
 * from the page, a trigger is disabled, the inventory tree opens. No console errors anywhere.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pkg from "../../package.json" with { type: "json" };
import { waitFor } from "../helpers/ports.ts";
import { type Browser, coloredPixels, launchBrowser, type PageGlobals } from "./browser.ts";
import { System } from "./harness.ts";

const TENANT = "acme";
const FEED = "web-1";
const CPU = `${FEED}:cpu_usage_percent:total`;
const BLUE = "#2563eb";
/** A gauge of 120 points, one a second, ending now. */
const SERIES = "app.temperature";
const SERIES_POINTS = 120;
const SERIES_START = Math.floor(Date.now() / 1000) * 1000 - SERIES_POINTS * 1000;

let sys: System;
let browser: Browser;

async function api(path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${sys.collectorUrl}${path}`, { ...init, headers: { "Svc-Tenant": TENANT, "Content-Type": "application/json", ...init.headers } });
}

/** Nothing went wrong in the page: no console error, no uncaught exception. */
function expectNoProblems() {
  expect(browser.problems).toEqual([]);
}

async function open(hash: string): Promise<Page> {
  const page = await browser.page();
  await page.goto(`${sys.collectorUrl}/?tenant=${TENANT}${hash}`);
  return page;
}

beforeAll(async () => {
  sys = new System({ broker: "embedded", tenant: TENANT, feed: FEED, agentArgs: ["--host-interval", "1s"] });
  await sys.start();
  // The agent has reported: presence, CPU (two samples), its inventory with its version.
  await waitFor(
    "the agent in the fleet interface",
    async () => {
      const res = await api("/svc/fleet/feeds");
      if (res.status !== 200) return undefined;
      const feeds = (await res.json()) as { feed: string; cpu?: unknown; agentVersion?: string }[];
      const f = feeds.find((x) => x.feed === FEED);
      return f?.cpu && f.agentVersion ? true : undefined;
    },
    30_000,
    250,
  );
  // A minute of points written through the agent's local API (agent buffer → MQTT → collector).
  const points = Array.from({ length: SERIES_POINTS }, (_, i) => ({ timestamp: SERIES_START + i * 1000, value: 20 + 5 * Math.sin(i / 8) }));
  const write = await fetch(`${sys.agentUrl}/svc/metrics/gauges/${SERIES}/raw`, { method: "POST", headers: { "Content-Type": "application/json", "Svc-Tenant": TENANT }, body: JSON.stringify(points) });
  expect(write.status).toBe(200);
  await waitFor(
    "the agent's points at the collector",
    async () => {
      const res = await api(`/svc/metrics/gauges/${SERIES}/raw?start=${SERIES_START}&end=${SERIES_START + SERIES_POINTS * 1000}&limit=1000`);
      return res.status === 200 && ((await res.json()) as unknown[]).length === SERIES_POINTS ? true : undefined;
    },
    20_000,
    250,
  );
  browser = await launchBrowser();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await sys?.stop();
});

describe("the console against a real collector and agent", () => {
  it("fleet: shows the agent online with its version and CPU, filters, and follows it offline and back live", async () => {
    const page = await open("#/fleet");
    const row = page.locator(`tr[data-feed="${FEED}"]`);
    await row.waitFor();
    expect(await row.textContent()).toContain("Online");
    expect(await row.textContent()).toContain(pkg.version);
    expect(await row.locator("svg path.line").getAttribute("d")).toMatch(/^M[\d.]+,[\d.]+/);
    // Filtering hides it; clearing brings it back.
    await page.fill("#fleet-filter", "no-such-feed");
    await page.getByText("No feed matches the filter.").waitFor();
    await page.fill("#fleet-filter", "web");
    await row.waitFor();
    await page.getByRole("button", { name: "Offline", exact: true }).click();
    await row.waitFor({ state: "detached" });
    await page.getByRole("button", { name: "All", exact: true }).click();
    // The agent stops (its last status says offline): the page shows it without a reload.
    await sys.agent.kill("SIGTERM");
    await page.locator(`tr.offline[data-feed="${FEED}"]`).waitFor({ timeout: 20_000 });
    expect(await row.textContent()).toContain("Offline");
    await sys.startAgent();
    await page.locator(`tr[data-feed="${FEED}"]:not(.offline)`).waitFor({ timeout: 20_000 });
    expect(await row.textContent()).toContain("Online");
    // Sorting by a header reorders and says so.
    await page.getByRole("button", { name: /^Feed/ }).click();
    expect(await page.locator("th", { hasText: "Feed" }).getAttribute("aria-sort")).toBe("ascending");
    await page.close();
    expectNoProblems();
  }, 90_000);

  it("fleet of 300 feeds: only the rows on screen are drawn, scrolling reaches the last one, a filter finds any", async () => {
    const many = "many";
    const now = Date.now();
    const availability = Array.from({ length: 300 }, (_, i) => ({ id: `node-${String(i).padStart(3, "0")}:outpost_agent_up`, dataPoints: [{ timestamp: now - 60_000, value: i % 3 ? "up" : "down" }] }));
    const res = await fetch(`${sys.collectorUrl}/svc/metrics/availability/raw`, { method: "POST", headers: { "Svc-Tenant": many, "Content-Type": "application/json" }, body: JSON.stringify(availability) });
    expect(res.status).toBe(200);
    const page = await browser.page();
    await page.goto(`${sys.collectorUrl}/?tenant=${many}#/fleet`);
    await page.locator('table[aria-rowcount="301"]').waitFor();
    await page.locator("tbody tr[data-feed]").first().waitFor();
    const drawn = await page.locator("tbody tr[data-feed]").count();
    expect(drawn).toBeGreaterThan(10);
    expect(drawn).toBeLessThan(100);
    // Offline first (status, ascending): every third feed.
    expect(await page.locator("tbody tr[data-feed]").first().getAttribute("class")).toContain("offline");
    await page.evaluate("window.scrollTo(0, document.body.scrollHeight)");
    await page.locator('tr[data-feed="node-299"]').waitFor();
    expect(await page.locator('tr[data-feed="node-299"]').getAttribute("aria-rowindex")).toBe("301");
    await page.fill("#fleet-filter", "node-150");
    await page.locator('table[aria-rowcount="2"] tr[data-feed="node-150"]').waitFor();
    await page.close();
    expectNoProblems();
  }, 60_000);

  it("metrics: a chart draws the agent's points, zooms on a drag, and takes a second series from the search", async () => {
    // The agent's presence over a day: a strip of its changes of state (it is online now).
    const presencePage = await open(`#/metrics?m=${encodeURIComponent(`availability:${FEED}:outpost_agent_up`)}&range=24h`);
    await presencePage.locator(".strip[data-segments]").waitFor();
    expect(Number(await presencePage.locator(".strip").getAttribute("data-segments"))).toBeGreaterThan(0);
    expect(await presencePage.locator(".strip-seg.up").count()).toBeGreaterThan(0);
    await presencePage.close();
    // The host's CPU, as the agent measures it: the chart holds what the interface answers.
    const cpuPage = await open(`#/metrics?m=${encodeURIComponent(`gauge:${CPU}`)}&range=15mn`);
    await cpuPage.locator(".uplot[data-points]").waitFor();
    expect(Number(await cpuPage.locator(".uplot").getAttribute("data-points"))).toBeGreaterThan(1);
    await cpuPage.close();

    const start = SERIES_START - 1000;
    const end = SERIES_START + SERIES_POINTS * 1000;
    const page = await open(`#/metrics?m=${encodeURIComponent(`gauge:${SERIES}`)}&from=${start}&to=${end}`);
    const chart = page.locator(".uplot[data-points]").first();
    await chart.waitFor();
    // Every point the agent sent is on the chart.
    expect(Number(await chart.getAttribute("data-points"))).toBe(SERIES_POINTS);
    const drawn = SERIES_POINTS;
    // The canvas really holds the line, in the first series' colour.
    expect(await coloredPixels(page, ".uplot canvas", BLUE)).toBeGreaterThan(100);

    // Drag across the middle third: the view reads that range again.
    const box = (await page.locator(".u-over").first().boundingBox())!;
    await page.mouse.move(box.x + box.width / 3, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + (2 * box.width) / 3, box.y + box.height / 2, { steps: 5 });
    await page.mouse.up();
    await page.waitForFunction((before) => {
      const from = Number(new URLSearchParams((globalThis as unknown as PageGlobals).location.hash.split("?")[1]).get("from"));
      return from > before;
    }, start);
    await page.waitForFunction((n) => {
      const v = Number((globalThis as unknown as PageGlobals).document.querySelector(".uplot")?.getAttribute("data-points"));
      return v > 0 && v < n;
    }, drawn);

    // Search the agent's CPU use and add it to the chart.
    await page.fill("#metric-id", CPU);
    await page.getByRole("button", { name: "Search" }).click();
    await page.getByLabel("Metrics found").getByText(CPU).click();
    await page.locator(".chip").nth(1).waitFor();
    await page.waitForFunction(() => (globalThis as unknown as PageGlobals).document.querySelectorAll(".uplot .u-legend .u-series").length >= 3);
    expect(await page.locator(".chip").count()).toBe(2);
    await page.close();
    expectNoProblems();
  }, 60_000);

  it("alerts: an alert fired by a trigger appears live, is acknowledged, noted and resolved from the page; the trigger is disabled and its history shows it all", async () => {
    const trigger = {
      trigger: { id: "latency-high", name: "Latency high", severity: "CRITICAL", enabled: true, description: "app.latency above 100 ms" },
      conditions: [{ triggerMode: "FIRING", type: "THRESHOLD", dataId: "app.latency", operator: "GT", threshold: 100 }],
    };
    expect((await api("/svc/alerts/triggers/trigger", { method: "POST", body: JSON.stringify(trigger) })).status).toBe(200);
    const page = await open("#/alerts");
    await page.getByText("Live", { exact: true }).waitFor();
    // A point through the agent's write API: agent buffer → MQTT → collector → the engine fires.
    const write = await fetch(`${sys.agentUrl}/svc/metrics/gauges/app.latency/raw`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "Svc-Tenant": TENANT },
      body: JSON.stringify([{ timestamp: Date.now(), value: 250 }]),
    });
    expect(write.status).toBe(200);
    const row = page.locator('tr[data-status="OPEN"]', { hasText: "Latency high" });
    await row.waitFor({ timeout: 20_000 });
    const alertId = (await row.getAttribute("data-alert"))!;
    expect(await row.textContent()).toContain("Threshold: app.latency[250.00] GT 100.00");

    await row.getByRole("button", { name: "Acknowledge" }).click();
    await page.locator(`tr[data-alert="${alertId}"][data-status="ACKNOWLEDGED"]`).waitFor();
    const acked = (await (await api(`/svc/alerts/alert/${encodeURIComponent(alertId)}`)).json()) as { status: string; lifecycle: { status: string; user: string }[] };
    expect(acked.status).toBe("ACKNOWLEDGED");
    // Without an auth file nobody is logged in: the page acts as "console".
    expect(acked.lifecycle.at(-1)).toMatchObject({ status: "ACKNOWLEDGED", user: "console" });

    await page.locator(`tr[data-alert="${alertId}"]`).getByRole("button", { name: "Note" }).click();
    await page.getByLabel("Note", { exact: true }).fill("looking into it");
    await page.getByRole("button", { name: "Add note" }).click();
    await page.locator(`tr[data-alert="${alertId}"] td.num`, { hasText: "1" }).waitFor();
    const noted = (await (await api(`/svc/alerts/alert/${encodeURIComponent(alertId)}`)).json()) as { notes: { text: string; user: string }[] };
    expect(noted.notes.map((n) => n.text)).toContain("looking into it");

    await page.locator(`tr[data-alert="${alertId}"]`).getByRole("button", { name: "Resolve" }).click();
    await page.getByLabel("Comment (optional)").fill("restarted the service");
    await page.getByRole("dialog").getByRole("button", { name: "Resolve" }).click();
    // The default view shows open and acknowledged alerts: the resolved one leaves it.
    await page.locator(`tr[data-alert="${alertId}"]`).waitFor({ state: "detached" });
    await page.getByRole("button", { name: "Resolved", exact: true }).click();
    await page.locator(`tr[data-alert="${alertId}"][data-status="RESOLVED"]`).waitFor();
    const resolved = (await (await api(`/svc/alerts/alert/${encodeURIComponent(alertId)}`)).json()) as { status: string };
    expect(resolved.status).toBe("RESOLVED");

    await page.getByRole("link", { name: "Triggers" }).click();
    const switchButton = page.locator('tr[data-trigger="latency-high"] [role="switch"]');
    await switchButton.waitFor();
    expect(await switchButton.getAttribute("aria-checked")).toBe("true");
    await switchButton.click();
    await page.locator('tr[data-trigger="latency-high"] [role="switch"][aria-checked="false"]').waitFor();
    const t = (await (await api("/svc/alerts/triggers/latency-high")).json()) as { enabled: boolean };
    expect(t.enabled).toBe(false);

    await page.getByRole("link", { name: "Latency high" }).first().click();
    const history = page.getByLabel("Trigger history");
    await history.getByText("Resolved").waitFor();
    const text = await history.textContent();
    for (const s of ["Fired (critical)", "Acknowledged", "Note", "looking into it", "Resolved"]) expect(text).toContain(s);
    await page.close();
    expectNoProblems();
  }, 60_000);

  it("inventory: the feed's resource tree opens, by mouse and keyboard, with each resource's metrics charted", async () => {
    const page = await open(`#/inventory/${FEED}`);
    const host = page.locator('[role="treeitem"][aria-level="1"]').first();
    await host.waitFor();
    await page.locator('[role="treeitem"][aria-level="1"][aria-expanded="true"]').waitFor();
    const children = page.locator('[role="treeitem"][aria-level="2"]');
    expect(await children.count()).toBeGreaterThan(1);
    // The host is selected first, with its metrics and their charts.
    await page.locator("section[data-metric] .uplot[data-points]").first().waitFor();
    const cpu0 = page.locator('[role="treeitem"][aria-level="2"]', { hasText: "cpu0" });
    await cpu0.click();
    expect(await cpu0.getAttribute("aria-selected")).toBe("true");
    await page.locator(`section[data-metric="${FEED}:cpu_usage_percent:cpu0"] .uplot[data-points]`).waitFor();
    expect(Number(await page.locator(`section[data-metric="${FEED}:cpu_usage_percent:cpu0"] .uplot`).getAttribute("data-points"))).toBeGreaterThan(0);
    // Keyboard: Up to the host, Left closes it, Right opens it again, Down and Enter select a child.
    await cpu0.focus();
    await page.keyboard.press("Home");
    await page.keyboard.press("ArrowLeft");
    await page.locator('[role="treeitem"][aria-level="1"][aria-expanded="false"]').waitFor();
    await page.keyboard.press("ArrowRight");
    await page.locator('[role="treeitem"][aria-level="1"][aria-expanded="true"]').waitFor();
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("Enter");
    const first = page.locator('[role="treeitem"][aria-level="2"]').first();
    expect(await first.getAttribute("aria-selected")).toBe("true");
    await page.close();
    expectNoProblems();
  }, 60_000);

  it("first screen: opened with no tenant named, the tenant with data, never the collector's own _outpost", async () => {
    // The collector's own metrics' tenant holds data too (as its self-metrics will).
    const own = await fetch(`${sys.collectorUrl}/svc/metrics/gauges/raw`, {
      method: "POST",
      headers: { "Svc-Tenant": "_outpost", "Content-Type": "application/json" },
      body: JSON.stringify([{ id: "collector:probe", data: [{ timestamp: Date.now(), value: 1 }] }]),
    });
    expect(own.status).toBe(200);
    const page = await browser.page();
    await page.goto(`${sys.collectorUrl}/`);
    const picker = page.locator("select#tenant");
    await page.waitForFunction(() => (globalThis as unknown as PageGlobals).document.title.includes("acme"));
    expect(await picker.inputValue()).toBe(TENANT);
    // Listed, to be found, but last.
    expect((await picker.locator("option").allTextContents()).at(-1)).toBe("_outpost");
    await page.close();
    expectNoProblems();
  });

  it("triggers: the New trigger form starts on one alert resolved when back, explains each mode; the trigger it makes fires once and resolves itself", async () => {
    const page = await open("#/alerts/triggers");
    await page.getByRole("button", { name: "New trigger" }).click();
    const form = page.getByRole("form", { name: "New trigger" });
    const checked = form.locator('input[name="firing-mode"]:checked');
    expect(await checked.getAttribute("value")).toBe("auto-resolve");
    const explained = form.getByTestId("firing-mode-explained");
    await form.getByLabel("Name").fill("Temperature high");
    await form.getByLabel("Metric").fill("form.temperature");
    await form.getByLabel("Threshold").fill("30");
    expect(await explained.textContent()).toBe(
      "Fires once when form.temperature > 30, then only watches for ≤ 30: that resolves the alert by itself and re-arms the trigger. One alert per episode.",
    );
    await form.getByLabel("An alert for every matching point").check();
    expect(await explained.textContent()).toMatch(/every point that matches opens another alert.*six alerts a minute/);
    await form.getByLabel("One alert, resolved when the value is back (recommended)").check();
    await form.getByRole("button", { name: "Create trigger" }).click();
    await page.locator('tr[data-trigger="temperature-high"]').waitFor();

    // Five points over the threshold through the agent, then one below.
    const t0 = Date.now() - 10_000;
    const send = (i: number, value: number) =>
      fetch(`${sys.agentUrl}/svc/metrics/gauges/form.temperature/raw`, { method: "POST", headers: { "Content-Type": "application/json", "Svc-Tenant": TENANT }, body: JSON.stringify([{ timestamp: t0 + i * 1000, value }]) });
    for (let i = 0; i < 5; i++) expect((await send(i, 35)).status).toBe(200);
    await waitFor("the five points", async () => {
      const r = await api(`/svc/metrics/gauges/form.temperature/raw?start=${t0 - 1}`);
      return r.status === 200 && ((await r.json()) as unknown[]).length === 5 ? true : undefined;
    });
    expect((await send(5, 20)).status).toBe(200);
    const alerts = await waitFor("the alert resolved by itself", async () => {
      const l = ((await (await api("/svc/alerts?triggerIds=temperature-high&statuses=OPEN,ACKNOWLEDGED,RESOLVED")).json().catch(() => [])) ?? []) as { status: string }[];
      return l.length > 0 && l.every((a) => a.status === "RESOLVED") ? l : undefined;
    }, 20_000);
    expect(alerts).toHaveLength(1);
    await page.close();
    expectNoProblems();
  }, 60_000);
});
