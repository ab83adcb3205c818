/**
 * The agent's on-site view in a real browser (Debian's Chromium through playwright-core): a real
 * agent process, cut off from its collector (killed) after part of its data was acknowledged,
 * serves the console's metrics page itself. The page loads from the agent and refuses to show
 * anything without the agent's api token; once logged in it says whose data it is and that the
 * collector is out of reach, with what waits to be sent; its charts plot exactly what the
 * agent's local read API answers (raw points, counter rates, bucketed stats over a day,
 * availability), the acknowledged and the waiting points alike; and nothing on it writes.
 */
import type { Page, Response as PageResponse } from "playwright-core";
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFailed } from "vitest";
import { waitFor } from "../helpers/ports.ts";
import { type Browser, coloredPixels, launchBrowser, type PageGlobals } from "./browser.ts";
import { System } from "./harness.ts";

const TENANT = "plant-7";
const FEED = "edge-pump";
const TOKEN = "on-site-token-4b1d9c07e2a85f36";
const BLUE = "#2563eb";
const TEMP = `${FEED}:temperature`;
const RUNS = `${FEED}:pump_runs_total`;
const DOOR = `${FEED}:door`;
const STEP = 10_000;

const sys = new System({ broker: "embedded", tenant: TENANT, feed: FEED, agentEnv: { OUTPOST_AGENT_API_TOKEN: TOKEN } });
let browser: Browser;
/** Points are written on a 10 s grid up to here; the collector is killed at `cut`. */
let now = 0;
let cut = 0;
let start = 0;

const withToken = (init: RequestInit = {}): RequestInit => ({ ...init, headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json", ...init.headers } });
const agent = (path: string, init?: RequestInit) => fetch(`${sys.agentUrl}${path}`, withToken(init));
const agentMetric = async (name: string): Promise<number | undefined> => {
  const res = await agent("/metrics").catch(() => undefined);
  const m = res && new RegExp(`^${name} (\\S+)$`, "m").exec(await res.text());
  return m ? Number(m[1]) : undefined;
};

async function write(from: number, to: number): Promise<void> {
  const gauge = [];
  const counter = [];
  for (let t = from; t < to; t += STEP) {
    gauge.push({ timestamp: t, value: 40 + 8 * Math.sin(t / 600_000) + ((t / STEP) % 7) / 10 });
    counter.push({ timestamp: t, value: Math.floor((t - start) / STEP) * 3 });
  }
  for (const [path, body] of [
    [`/svc/metrics/gauges/${TEMP}/raw`, gauge],
    [`/svc/metrics/counters/${RUNS}/raw`, counter],
  ] as const) {
    const r = await agent(path, { method: "POST", body: JSON.stringify(body) });
    expect(r.status, await r.clone().text()).toBe(200);
  }
}

async function door(t: number, value: "up" | "down"): Promise<void> {
  expect((await agent(`/svc/metrics/availability/${DOOR}/raw`, { method: "POST", body: JSON.stringify([{ timestamp: t, value }]) })).status).toBe(200);
}

beforeAll(async () => {
  await sys.start();
  now = Math.floor(Date.now() / STEP) * STEP;
  start = now - 3 * 3_600_000;
  cut = now - 15 * 60_000;
  // Before the outage: acknowledged by the collector and kept in the agent's window.
  await write(start, cut);
  await door(start, "up");
  await door(start + 3_600_000, "down");
  await door(start + 2 * 3_600_000, "up");
  await waitFor("the window to hold them", async () => (((await agentMetric("outpost_agent_history_points")) ?? 0) >= 2 * ((cut - start) / STEP) ? true : undefined), 30_000, 200);
  // The collector (and its embedded broker) gone: what follows waits in the agent's backlog.
  await sys.collector.kill("SIGKILL");
  await waitFor("the agent to notice", async () => ((await agentMetric("outpost_agent_broker_connected")) === 0 ? true : undefined), 20_000, 200);
  await write(cut, now + STEP);
  await door(now - 5 * 60_000, "down");
  browser = await launchBrowser();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await sys.stop();
});

beforeEach(() => {
  browser.problems.length = 0;
  onTestFailed(() => console.error(sys.logs()));
});

/** The page's problems other than refusals the test provoked on purpose (Chromium logs each refused request as an error). */
function problemsBut(status: 401 | 403, paths: string[]): string[] {
  const provoked = (p: string) => p.includes(`status of ${status} `) && paths.some((path) => p.includes(`${sys.agentUrl}/${path}`));
  return browser.problems.filter((p) => !provoked(p));
}

/** Requests the page made: method, URL and status. */
function recordRequests(page: Page): { method: string; url: string; status: number }[] {
  const seen: { method: string; url: string; status: number }[] = [];
  page.on("response", (r: PageResponse) => seen.push({ method: r.request().method(), url: r.url(), status: r.status() }));
  return seen;
}

/** A fetch from inside the page (its cookies, its origin), answered with the status. */
function fetchInPage(page: Page, path: string, method = "GET", body?: string): Promise<number> {
  return page.evaluate(
    async ({ path, method, body }) => {
      const f = (globalThis as unknown as { fetch: (u: string, i: object) => Promise<{ status: number }> }).fetch;
      return (await f(path, { method, body, credentials: "same-origin", headers: { "Content-Type": "application/json", "X-Outpost-Console": "1" } })).status;
    },
    { path, method, body },
  );
}

async function logIn(page: Page): Promise<void> {
  await page.goto(`${sys.agentUrl}/`);
  await page.fill("#login-token", TOKEN);
  await page.getByRole("button", { name: "Log in" }).click();
  await page.getByTestId("on-site-banner").waitFor();
}

/** A view opened in a new tab of the logged-in browser (its session cookie), with the requests it makes. */
async function openView(hash: string): Promise<{ page: Page; seen: { method: string; url: string; status: number }[] }> {
  const page = await browser.page();
  const seen = recordRequests(page);
  await page.goto(`${sys.agentUrl}/${hash}`);
  return { page, seen };
}

interface Plotted {
  x: number[];
  lines: { label: string; values: (number | null)[] }[];
}

/** What the chart of a section ("Gauges", "Counters") drew. */
async function plotted(page: Page, title: string): Promise<Plotted> {
  const chart = page.locator("section.chart-card", { has: page.locator("h2", { hasText: title }) }).locator(".uplot[data-points]");
  await chart.waitFor();
  return chart.evaluate((el) => (el as unknown as { plotted: Plotted }).plotted);
}

/** The one request of the page whose path ends so (and whose query has `having`), asked again of the agent's read API with the token. */
async function sameRequest(seen: { url: string }[], pathEnd: string, having = ""): Promise<unknown[]> {
  const hits = seen.filter((r) => new URL(r.url).pathname.endsWith(pathEnd) && new URL(r.url).search.includes(having));
  expect(hits, `the page read ${pathEnd}`).toHaveLength(1);
  const res = await fetch(hits[0]!.url, withToken({ headers: { "Svc-Tenant": TENANT } }));
  expect(res.status).toBe(200);
  return (await res.json()) as unknown[];
}

const metricsLink = (from: number, to: number) =>
  `#/metrics?from=${from}&to=${to}&${[`gauge:${TEMP}`, `counter:${RUNS}`, `availability:${DOOR}`].map((m) => `m=${encodeURIComponent(m)}`).join("&")}`;

describe("the agent's on-site view, with its collector gone", () => {
  it("loads from the agent and shows nothing without the api token", async () => {
    const page = await browser.page();
    const res = await page.goto(`${sys.agentUrl}/`);
    expect(res?.status()).toBe(200);
    expect(res?.headers()["content-security-policy"]).toContain("connect-src 'self'");
    await page.locator("#login-token").waitFor();
    expect(await page.locator("body").textContent()).toContain(FEED);
    // The page's own calls to the agent's data are refused without a login.
    expect(await fetchInPage(page, "svc/metrics/metrics")).toBe(401);
    expect(await fetchInPage(page, "console/api/status")).toBe(401);
    expect(await fetchInPage(page, "api/v1/query?query=up")).toBe(401);
    // A wrong token is refused and shows nothing more.
    await page.fill("#login-token", "not-the-token");
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByRole("alert").getByText("Wrong api token.").waitFor();
    expect(await page.locator("[data-testid=on-site-banner], .uplot, .list").count()).toBe(0);
    expect(await fetchInPage(page, "svc/metrics/metrics")).toBe(401);

    await page.fill("#login-token", TOKEN);
    await page.getByRole("button", { name: "Log in" }).click();
    const banner = page.getByTestId("on-site-banner");
    await banner.waitFor();
    // The session: a cookie no script reads and no other site's page sends.
    const cookie = (await browser.context.cookies(sys.agentUrl)).find((c) => c.name === "outpost_on_site");
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Strict" });
    expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).document.cookie)).not.toContain("outpost_on_site");

    // Whose data, that it is the agent's own, and that the collector is out of reach with a backlog waiting.
    await page.locator("[data-testid=on-site-banner][data-tone=offline]").waitFor();
    const text = (await banner.textContent()) ?? "";
    expect(text).toContain(`Local view of feed ${FEED}`);
    expect(text).toContain(`tenant ${TENANT}`);
    expect(text).toMatch(/Offline: no connection to the broker mqtt:\/\/127\.0\.0\.1:\d+ since /);
    const waiting = Number(/([\d,]+) points \([^)]+\) wait to be sent/.exec(text)?.[1]?.replace(/,/g, ""));
    expect(waiting).toBeGreaterThanOrEqual(2 * ((now + STEP - cut) / STEP));
    expect(text).toMatch(/The collector last acknowledged data at /);
    expect(text).toMatch(/The agent keeps 24 h of acknowledged data/);
    // The feed's series are listed at once.
    await page.getByLabel("Metrics found").getByText(TEMP).waitFor();
    expect(await page.getByLabel("Metrics found").getByText(RUNS).count()).toBe(1);
    await page.close();
    expect(problemsBut(401, ["svc/metrics/metrics", "console/api/status", "api/v1/query", "console/api/login"])).toEqual([]);
  }, 60_000);

  it("charts plot exactly what the agent's read API answers, acknowledged and waiting points alike", async () => {
    // Kept open: closing a browser's last tab ends its session cookies.
    const login = await browser.page();
    await logIn(login);
    // Three hours and a bit: raw points and raw counter rates.
    const from = start - 60_000;
    const to = now + 60_000;
    const { page, seen } = await openView(metricsLink(from, to));
    const gauges = await plotted(page, "Gauges");
    const counters = await plotted(page, "Counters");
    await page.locator(".strip[data-segments]").waitFor();

    const raw = (await sameRequest(seen, `/gauges/${encodeURIComponent(TEMP)}/raw`)) as { timestamp: number; value: number }[];
    expect(raw).toHaveLength((now + STEP - start) / STEP);
    expect(gauges.x).toEqual(raw.map((p) => p.timestamp / 1000));
    expect(gauges.lines.map((l) => l.label)).toEqual([TEMP]);
    expect(gauges.lines[0]!.values).toEqual(raw.map((p) => p.value));
    // Both sides of the cut: points the collector acknowledged and points still waiting for it.
    expect(gauges.x[0]).toBe(start / 1000);
    expect(gauges.x.at(-1)).toBe(now / 1000);

    const rates = (await sameRequest(seen, `/counters/${encodeURIComponent(RUNS)}/rate`)) as { timestamp: number; value: number }[];
    expect(rates.length).toBeGreaterThan(1000);
    expect(counters.x).toEqual(rates.map((p) => p.timestamp / 1000));
    // Drawn per second; the interface answers per minute.
    expect(counters.lines[0]!.values).toEqual(rates.map((p) => p.value * (1 / 60)));

    // Availability: a strip of its changes, as the read API lists them.
    const changes = (await sameRequest(seen, `/availability/${encodeURIComponent(DOOR)}/raw`, "distinct=true")) as { value: string }[];
    expect(changes.map((p) => p.value)).toEqual(["up", "down", "up", "down"]);
    expect(await page.locator(".strip").getAttribute("data-segments")).toBe("4");
    expect(await page.locator(".strip-seg.down").count()).toBe(2);
    expect(await coloredPixels(page, "section.chart-card .uplot canvas", BLUE)).toBeGreaterThan(100);

    await page.close();

    // The last day: bucketed stats of the local window.
    const { page: dayPage, seen: daySeen } = await openView(metricsLink(now - 24 * 3_600_000, to));
    const day = await plotted(dayPage, "Gauges");
    const buckets = (await sameRequest(daySeen, `/gauges/${encodeURIComponent(TEMP)}/stats`)) as { start: number; end: number; empty: boolean; avg?: number }[];
    expect(buckets.filter((b) => !b.empty).length).toBeGreaterThan(30);
    expect(day.x).toEqual(buckets.map((b) => Math.round((b.start + b.end) / 2) / 1000));
    expect(day.lines[0]!.values).toEqual(buckets.map((b) => (b.empty || b.avg === undefined ? null : b.avg)));
    const dayRates = (await sameRequest(daySeen, `/counters/${encodeURIComponent(RUNS)}/rate/stats`)) as { empty: boolean; avg?: number }[];
    const dayCounters = await plotted(dayPage, "Counters");
    expect(dayCounters.lines[0]!.values).toEqual(dayRates.map((b) => (b.empty || b.avg === undefined ? null : b.avg * (1 / 60))));
    // Ranges offered end at the local window.
    expect(await dayPage.getByRole("group", { name: "Time range" }).getByRole("button").allTextContents()).toEqual(["15 min", "1 h", "6 h", "24 h"]);
    await dayPage.close();
    await login.close();
    expect(browser.problems).toEqual([]);
  }, 60_000);

  it("offers no write action, and its session cannot write", async () => {
    const page = await browser.page();
    const seen = recordRequests(page);
    await logIn(page);
    await page.goto(`${sys.agentUrl}/${metricsLink(start, now + 60_000)}`);
    await page.reload();
    await plotted(page, "Gauges");
    // One page: no fleet, alerts, triggers or inventory, whatever the link asks for.
    for (const name of ["Fleet", "Alerts", "Triggers", "Inventory"]) expect(await page.getByRole("link", { name }).count()).toBe(0);
    await page.goto(`${sys.agentUrl}/#/alerts`);
    await page.getByRole("heading", { name: "Metrics" }).waitFor();
    expect(await page.locator("text=/Acknowledge|Resolve|New trigger|Delete/").count()).toBe(0);
    // Every button reads, picks or leaves: none sends anything to the agent.
    const buttons = (await page.locator("button").allTextContents()).map((t) => t.trim());
    const reading = /^(Skip to content|Search|15 min|1 h|6 h|24 h|Apply|Reset zoom|Log out|[☾☀◐×])$/;
    expect(buttons.filter((b) => !reading.test(b))).toEqual([]);
    // The page itself only read: its one other request was the login.
    expect(seen.filter((r) => r.method !== "GET").map((r) => new URL(r.url).pathname)).toEqual(["/console/api/login"]);

    // The session cookie, sent by the page's own calls, reads but never writes.
    const point = JSON.stringify([{ timestamp: now, value: 1 }]);
    expect(await fetchInPage(page, `svc/metrics/gauges/${TEMP}/raw?start=${start}`)).toBe(200);
    expect(await fetchInPage(page, `svc/metrics/gauges/${TEMP}/raw`, "POST", point)).toBe(403);
    expect(await fetchInPage(page, "svc/metrics/gauges/raw", "POST", JSON.stringify([{ id: "x", data: [{ timestamp: now, value: 1 }] }]))).toBe(403);
    expect(await fetchInPage(page, `svc/metrics/gauges/${TEMP}/raw/query`, "POST", JSON.stringify({ start }))).toBe(403);
    expect(await fetchInPage(page, "api/v2/write?bucket=b", "POST", "m v=1")).toBe(403);
    expect(await fetchInPage(page, "v1/metrics", "POST", "{}")).toBe(403);
    const points = (await (await agent(`/svc/metrics/gauges/x/raw?start=${start}`)).text()).trim();
    expect(points).toBe("");

    // Logging out ends the session: the agent refuses the old cookie.
    const cookie = (await browser.context.cookies(sys.agentUrl)).find((c) => c.name === "outpost_on_site")!;
    await page.getByRole("button", { name: "Log out" }).click();
    await page.locator("#login-token").waitFor();
    expect((await fetch(`${sys.agentUrl}/svc/metrics/metrics`, { headers: { Cookie: `outpost_on_site=${cookie.value}` } })).status).toBe(401);
    await page.close();
    expect(problemsBut(403, ["svc/metrics/gauges/", "api/v2/write", "v1/metrics"])).toEqual([]);
  }, 60_000);
});
