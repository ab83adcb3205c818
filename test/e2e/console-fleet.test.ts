/**
 * The console's fleet management in a real browser against a real collector and agents
 * (docs/fleet.md): each feed's identity and configuration state on the fleet page, an identity
 * conflict shown and resolved by moving the feed, and the configuration editor: a refusal from
 * the agents' schema shown as typed, a diff against the running revision, a rollout applied.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, waitFor } from "../helpers/ports.ts";
import { type Browser, launchBrowser } from "./browser.ts";
import { BUN, Proc, System, waitHealthy } from "./harness.ts";

const TENANT = "acme";
const FEED = "web-1";
let sys: System;
let clone: Proc;
let browser: Browser;

const api = (path: string, init: RequestInit = {}) => fetch(`${sys.collectorUrl}${path}`, { ...init, headers: { "Svc-Tenant": TENANT, "Content-Type": "application/json", ...init.headers } });

beforeAll(async () => {
  sys = new System({ broker: "embedded", tenant: TENANT, feed: FEED, agentArgs: ["--host-metrics", "false", "--tags", "role=edge"] });
  await sys.start();
  await waitFor("the agent's claim", async () => ((await api(`/svc/fleet/feeds/${FEED}/identity`)).status === 200 ? true : undefined), 30_000);
  // A second agent with the same feed and its own data folder: a cloned device.
  const port = await freePort();
  clone = new Proc("clone", [BUN, "agent/main.ts", "--broker", `mqtt://127.0.0.1:${sys.mqttPort}`, "--tenant", TENANT, "--feed", FEED, "--data-dir", join(sys.dir, "clone"), "--listen", `127.0.0.1:${port}`, "--host-metrics", "false", "--reconnect-min", "200ms", "--reconnect-max", "1s"], sys.dir);
  clone.start();
  await waitHealthy(`http://127.0.0.1:${port}`, clone);
  await waitFor("the conflict", async () => ((await api("/svc/fleet/conflicts")).status === 200 ? true : undefined), 30_000);
  browser = await launchBrowser();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await clone?.kill("SIGKILL");
  await sys?.stop();
});

describe("fleet management in the console", () => {
  it("shows identities and a conflict, rolls out a checked configuration with its diff, and moves the feed to the other agent", async () => {
    const page = await browser.page();
    await page.goto(`${sys.collectorUrl}/?tenant=${TENANT}#/fleet`);
    const row = page.locator(`tr[data-feed="${FEED}"]`);
    await row.waitFor();
    const holder = ((await (await api(`/svc/fleet/feeds/${FEED}/identity`)).json()) as { holder: { instance: string } }).holder.instance;
    expect(await row.textContent()).toContain(holder.slice(0, 8));
    expect(await row.textContent()).toContain("role=edge");
    expect(await row.textContent()).toContain("local");
    const conflicts = page.getByRole("table", { name: "Identity conflicts" });
    await conflicts.waitFor();
    expect(await page.locator("#conflicts-title").textContent()).toContain("1 identity conflict");

    // The editor, for the feeds tagged role=edge.
    await page.getByRole("link", { name: "Remote configuration" }).click();
    const editor = page.locator("#config-text");
    await editor.waitFor();
    await page.getByText("1 feed now; they run their local configuration").waitFor();
    await editor.fill('{\n  "host-intervall": "20s"\n}');
    await page.getByText('did you mean "host-interval"?', { exact: false }).waitFor();
    expect(await page.getByRole("button", { name: "Roll out" }).isDisabled()).toBe(true);
    await editor.fill('{\n  "host-interval": "20s",\n  "log-level": "info"\n}');
    await page.getByText("Valid for the agents' schema").waitFor();
    expect(await page.locator("pre.diff .add").allTextContents()).toEqual(["+ {", '+   "host-interval": "20s",', '+   "log-level": "info"', "+ }"]);
    await page.fill('input[aria-label="Comment"]', "slower host metrics");
    await page.getByRole("button", { name: "Roll out" }).click();
    await page.getByText("Revision 1 sent to 1 feed.").waitFor();
    const reached = page.getByRole("table", { name: "Feeds reached" });
    await reached.getByText("rev 1", { exact: true }).waitFor({ timeout: 20_000 });
    const revisions = page.getByRole("table", { name: "Configuration revisions" });
    expect(await revisions.locator("tbody tr").first().textContent()).toContain("role=edge");
    expect(await revisions.locator("tbody tr").first().textContent()).toContain("slower host metrics");
    // Editing again: the diff is against revision 1, which now runs.
    await page.locator("#config-text").fill('{\n  "host-interval": "30s",\n  "log-level": "info"\n}');
    await page.getByText("Changes against revision 1, running on 1 of these feeds").waitFor();
    expect(await page.locator("pre.diff .del").allTextContents()).toEqual(['-   "host-interval": "20s",']);
    expect(await page.locator("pre.diff .add").allTextContents()).toEqual(['+   "host-interval": "30s",']);

    // Back on the fleet: the revision runs; the conflict is resolved by moving the feed.
    await page.getByRole("link", { name: "Back to the fleet" }).click();
    await row.getByText("rev 1").waitFor();
    await conflicts.getByRole("button", { name: "Move feed here" }).click();
    await conflicts.waitFor({ state: "detached", timeout: 10_000 });
    const moved = ((await (await api(`/svc/fleet/feeds/${FEED}/identity`)).json()) as { holder: { instance: string }; changes: { action: string }[] });
    expect(moved.holder.instance).not.toBe(holder);
    expect(moved.changes.map((c) => c.action)).toEqual(["claimed", "moved"]);
    await page.close();
    expect(browser.problems).toEqual([]);
  }, 90_000);
});
