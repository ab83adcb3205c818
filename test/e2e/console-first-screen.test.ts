/**
 * The console's first screen on a collector that holds no data yet (issue 25): not the
 * collector's own `_outpost` tenant, but the exact command that starts an agent against this
 * collector's broker; run as shown, the agent's tenant appears.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, waitFor } from "../helpers/ports.ts";
import { portOf, ROOT, Running } from "../helpers/program.ts";
import { type Browser, launchBrowser } from "./browser.ts";

const dir = mkdtempSync(join(tmpdir(), "outpost-first-screen-"));
let collector: Running;
let agent: Running | undefined;
let url = "";
let browser: Browser;
let mqttPort = 0;

beforeAll(async () => {
  mqttPort = await freePort();
  collector = Running.start("collector", ["--data-dir", join(dir, "collector"), "--http-port", "0", "--mqtt-port", String(mqttPort)]);
  url = `http://127.0.0.1:${portOf(await collector.waitForLine(/HTTP listening/))}`;
  await collector.waitForLine(/collector ready/);
  browser = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await agent?.stop("SIGTERM");
  await collector?.stop("SIGTERM");
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("a collector without data", () => {
  it("opens on the command that starts an agent, which, run as shown, brings its tenant", async () => {
    // Its own metrics are there: they must not be the first screen.
    const own = await fetch(`${url}/svc/metrics/gauges/raw`, {
      method: "POST",
      headers: { "Svc-Tenant": "_outpost", "Content-Type": "application/json" },
      body: JSON.stringify([{ id: "collector:probe", data: [{ timestamp: Date.now(), value: 1 }] }]),
    });
    expect(own.status).toBe(200);
    const page = await browser.page();
    await page.goto(`${url}/`);
    const card = page.getByTestId("no-data-yet");
    await card.waitFor();
    const command = (await card.locator("pre.command").textContent())!;
    expect(command).toBe(`bun agent/main.ts --broker mqtt://127.0.0.1:${mqttPort} --tenant acme`);
    expect(await card.textContent()).toContain("The collector's own metrics are under _outpost");

    // The command as shown, with a data folder and an API port of the test's own.
    const agentPort = await freePort();
    const [bun, ...args] = command.split(" ");
    expect(bun).toBe("bun");
    agent = new Running([process.execPath, ...args, "--data-dir", join(dir, "agent"), "--listen", `127.0.0.1:${agentPort}`, "--host-interval", "1s"], { cwd: ROOT });
    await agent.waitForLine(/connected to broker/);
    await waitFor("the agent's tenant", async () => {
      const s = (await (await fetch(`${url}/console/api/session`)).json()) as { tenants: string[] };
      return s.tenants.includes("acme") ? true : undefined;
    }, 30_000);
    await page.reload();
    expect(await page.locator("select#tenant").inputValue()).toBe("acme");
    await page.locator("table.data tbody tr").first().waitFor();
    expect(browser.problems).toEqual([]);
    await page.close();
  }, 90_000);
});
