/**
 * The console with an auth file, in a real browser against a real collector and agent: the
 * login form, a wrong password refused, each user confined to their tenants (picker, links,
 * and the interfaces themselves), logging out.
 */
import { rmSync } from "node:fs";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { basic, writeTestAuthFile } from "../helpers/auth.ts";
import { waitFor } from "../helpers/ports.ts";
import { type Browser, launchBrowser, type PageGlobals } from "./browser.ts";
import { System } from "./harness.ts";

const TENANT = "acme";
const FEED = "web-1";
const USERS = {
  alice: { name: "alice", password: "alice-console-pw", tenants: [TENANT] },
  bob: { name: "bob", password: "bob-console-pw", tenants: ["beta"] },
  agent: { name: "web-1", password: "agent-pw", agent: { tenant: TENANT, feed: FEED } },
};

let sys: System;
let browser: Browser;
let authDir: string;
/** One tab for the whole file: closing a browser's last tab ends its session cookies, as it should. */
let page: Page;

/** Takes the problems the browser reported that the test expected; any other one fails. */
function expectOnlyProblems(...expected: RegExp[]) {
  const left = browser.problems.splice(0).filter((p) => !expected.some((e) => e.test(p)));
  expect(left).toEqual([]);
}

async function logIn(page: Page, user: string, password: string) {
  await page.fill("#login-user", user);
  await page.fill("#login-password", password);
  await page.getByRole("button", { name: "Log in" }).click();
}

/** A call to an interface from inside the page, as the page's own code makes it (cookie, marker). */
function fetchFromPage(page: Page, path: string, tenant: string): Promise<number> {
  return page.evaluate(
    async ({ path, tenant }) => (await fetch(path, { headers: { "Svc-Tenant": tenant, "X-Outpost-Console": "1" } })).status,
    { path, tenant },
  );
}

beforeAll(async () => {
  const auth = await writeTestAuthFile(Object.values(USERS));
  authDir = auth.dir;
  sys = new System({
    broker: "embedded",
    tenant: TENANT,
    feed: FEED,
    agentArgs: ["--host-interval", "1s"],
    auth: { authFile: auth.path, agent: { user: USERS.agent.name, password: USERS.agent.password }, http: basic(USERS.alice.name, USERS.alice.password) },
  });
  await sys.start();
  await waitFor(
    "the agent in the fleet",
    async () => {
      const res = await fetch(`${sys.collectorUrl}/svc/fleet/feeds`, { headers: { "Svc-Tenant": TENANT, Authorization: sys.o.auth!.http } });
      return res.status === 200 ? true : undefined;
    },
    30_000,
    250,
  );
  browser = await launchBrowser();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await sys?.stop();
  if (authDir) rmSync(authDir, { recursive: true, force: true });
});

describe("the console behind an auth file", () => {
  it("asks for a login, refuses a wrong password, and lets the right one in to the user's tenant", async () => {
    page = await browser.page();
    await page.goto(`${sys.collectorUrl}/`);
    await page.locator("#login-user").waitFor();
    // No data is reachable before logging in.
    expect(await fetchFromPage(page, "svc/fleet/feeds", TENANT)).toBe(401);
    expectOnlyProblems(/401/);

    await logIn(page, "alice", "not-her-password");
    await page.getByRole("alert").getByText("Wrong user name or password.").waitFor();
    expect(await page.locator("#login-password").inputValue()).toBe("");
    expectOnlyProblems(/401/);

    await logIn(page, "alice", USERS.alice.password);
    await page.locator(`tr[data-feed="${FEED}"]`).waitFor({ timeout: 20_000 });
    // The picker offers the tenants this login holds, and the URL says which one is shown.
    expect(await page.locator("#tenant option").allTextContents()).toEqual([TENANT]);
    expect(new URL(page.url()).searchParams.get("tenant")).toBe(TENANT);
    expect(await page.locator(".topbar .user").textContent()).toBe("alice");
    // The session cookie is not readable by the page's scripts.
    expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).document.cookie)).not.toContain("outpost_session");
    expectOnlyProblems();
  }, 60_000);

  it("keeps each user to their tenants: a link to another tenant is refused, and so is the interface", async () => {
    // Still logged in (same browser): a link naming a tenant alice does not hold.
    await page.goto(`${sys.collectorUrl}/?tenant=beta#/fleet`);
    await page.getByText("This login does not hold tenant “beta”").waitFor();
    await page.locator(`tr[data-feed="${FEED}"]`).waitFor();
    expect(await fetchFromPage(page, "svc/fleet/feeds", "beta")).toBe(403);
    expect(await fetchFromPage(page, "svc/fleet/feeds", TENANT)).toBe(200);
    expectOnlyProblems(/403/);

    await page.getByRole("button", { name: "Log out" }).click();
    await page.locator("#login-user").waitFor();
    expect(await fetchFromPage(page, "svc/fleet/feeds", TENANT)).toBe(401);
    expectOnlyProblems(/401/);

    await logIn(page, "bob", USERS.bob.password);
    await page.getByText("No feed has reported to this tenant yet.", { exact: false }).waitFor();
    expect(await page.locator("#tenant option").allTextContents()).toEqual(["beta"]);
    expect(await page.locator(`tr[data-feed="${FEED}"]`).count()).toBe(0);
    expect(await fetchFromPage(page, "svc/fleet/feeds", TENANT)).toBe(403);
    expect(await fetchFromPage(page, `svc/inventory/traversal/f;${FEED}`, TENANT)).toBe(403);
    expectOnlyProblems(/403/, /403/);
  }, 60_000);
});
