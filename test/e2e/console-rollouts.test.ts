/**
 * The console's rollouts in a real browser against a real collector (agents played by MQTT
 * clients reporting their statuses): the fleet shows each feed's upgrade; a rollout is started
 * from the form, followed batch by batch, paused and resumed; its first failure pauses it with
 * the reason on the page; the form refuses what the collector would, saying why.
 */
import { createHash, generateKeyPairSync, randomBytes } from "node:crypto";
import { join } from "node:path";
import mqtt, { type MqttClient } from "mqtt";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEncoder } from "../../src/protocol/cbor.ts";
import { encodeStatus, type Status } from "../../src/protocol/control-messages.ts";
import { agentClientId, buildTopic } from "../../src/protocol/topics.ts";
import { formatPublicKey, signRelease } from "../../src/release/signature.ts";
import { freePort, waitFor } from "../helpers/ports.ts";
import { type Browser, launchBrowser } from "./browser.ts";
import { BUN, Proc, System, waitHealthy } from "./harness.ts";

const TENANT = "acme";
const FEEDS = ["edge-1", "edge-2", "edge-3"];
const enc = createEncoder();
const keys = generateKeyPairSync("ed25519");
const sys = new System({ broker: "embedded", tenant: TENANT, feed: "unused" });
let collector: Proc;
let url = "";
let browser: Browser;
const clients = new Map<string, MqttClient>();

async function status(feed: string, s: Partial<Status>): Promise<void> {
  const full: Status = { state: "online", session: 1, at: Date.now(), arch: "x64", version: "1.0.0", ...s };
  await clients.get(feed)!.publishAsync(buildTopic("svc", { tenant: TENANT, feed, kind: "status" }), Buffer.from(encodeStatus(enc, full)), { qos: 1, retain: true });
}

async function upload(version: string): Promise<void> {
  const b = new Uint8Array(randomBytes(4096));
  b.set([0x7f, 0x45, 0x4c, 0x46], 0);
  b[18] = 62;
  b[19] = 0;
  const sha256 = createHash("sha256").update(b).digest("hex");
  const res = await fetch(`${url}/svc/fleet/releases/${version}/binaries/x64`, {
    method: "PUT",
    body: b,
    headers: { "Content-Type": "application/octet-stream", "Outpost-Signature": signRelease(keys.privateKey, { version, arch: "x64", size: b.length, sha256 }) },
  });
  expect(res.status).toBe(201);
}

async function open(hash: string): Promise<Page> {
  const page = await browser.page();
  await page.goto(`${url}/?tenant=${TENANT}${hash}`);
  return page;
}

beforeAll(async () => {
  const httpPort = await freePort();
  const mqttPort = await freePort();
  url = `http://127.0.0.1:${httpPort}`;
  collector = new Proc(
    "collector",
    [BUN, "collector/main.ts", "--http-port", String(httpPort), "--mqtt-port", String(mqttPort), "--data-dir", join(sys.dir, "collector"), "--release-public-key", formatPublicKey(keys.publicKey)],
    sys.dir,
  );
  collector.start();
  await waitHealthy(url, collector);
  for (const feed of FEEDS) {
    clients.set(feed, await mqtt.connectAsync(`mqtt://127.0.0.1:${mqttPort}`, { protocolVersion: 4, reconnectPeriod: 0, clientId: agentClientId(TENANT, feed) }));
    await status(feed, {});
  }
  await upload("1.1.0");
  await upload("0.9.0");
  await waitFor("three reports", async () => {
    const res = await fetch(`${url}/svc/fleet/upgrades`, { headers: { "Svc-Tenant": TENANT } });
    return res.status === 200 && ((await res.json()) as unknown[]).length === 3 ? true : undefined;
  });
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  for (const c of clients.values()) await c.endAsync();
  await browser?.close();
  await collector?.kill("SIGKILL");
  await sys.stop();
});

describe("rollouts in the console", () => {
  it("starts a rollout from the form, follows it batch by batch, pauses and resumes it; a failure pauses it with its reason", async () => {
    const page = await open("#/fleet");
    await page.locator('tr[data-feed="edge-1"]').waitFor();
    expect(await page.locator("th", { hasText: "Upgrade" }).count()).toBe(1);
    await page.getByRole("link", { name: "Rollouts" }).click();
    await page.getByText("No rollout yet in this tenant.").waitFor();

    await page.getByRole("button", { name: "New rollout" }).click();
    await page.getByRole("button", { name: "Start rollout" }).click();
    await page.getByText("Choose the version to roll out").waitFor();
    await page.selectOption("#rollout-version", "1.1.0");
    await page.fill("#rollout-batches", "50, 90");
    await page.getByRole("button", { name: "Start rollout" }).click();
    await page.getByText("Batches grow and end at 100").waitFor();
    await page.fill("#rollout-batches", "50, 100");
    await page.getByRole("button", { name: "Start rollout" }).click();

    // The rollout's own page: the canary ordered, the rest waiting.
    await page.locator('[data-testid="rollout-state"]', { hasText: "running" }).waitFor();
    const canary = page.locator('[data-batch="0"]');
    await canary.locator('tr[data-feed="edge-1"]', { hasText: "ordered" }).waitFor();
    expect(await page.locator('[data-batch="1"]').textContent()).toContain("waiting");
    expect(await page.locator('[data-batch="1"]').textContent()).toContain("up to 50 %");

    // The canary upgrades: the next batch goes.
    await status("edge-1", { version: "1.1.0", session: 2, upgrade: { state: "installed", version: "1.1.0", at: Date.now() } });
    await canary.getByText("done").waitFor({ timeout: 15_000 });
    await page.locator('[data-batch="1"] tr[data-feed="edge-2"]', { hasText: "ordered" }).waitFor({ timeout: 15_000 });

    await page.getByRole("button", { name: "Pause" }).click();
    await page.locator('[data-testid="rollout-state"]', { hasText: "paused" }).waitFor();
    await page.getByText(/Paused: paused by/).waitFor();
    await page.getByRole("button", { name: "Resume" }).click();
    await page.locator('[data-testid="rollout-state"]', { hasText: "running" }).waitFor();

    await status("edge-2", { session: 2, upgrade: { state: "failed", version: "1.1.0", reason: "exited with code 3 at start", rolledBack: true, at: Date.now() } });
    await page.getByText("Paused: edge-2 failed: exited with code 3 at start (rolled back)").waitFor({ timeout: 15_000 });
    expect(await page.locator('[data-batch="1"]').textContent()).toContain("stopped");

    // The fleet shows each feed's part.
    await page.getByRole("link", { name: "Feeds" }).click();
    await page.locator('[data-upgrade="edge-1"]', { hasText: "on 1.1.0" }).waitFor({ timeout: 15_000 });
    expect(await page.locator('[data-upgrade="edge-2"]').textContent()).toBe("failed 1.1.0, rolled back");
    expect(await page.locator('tr[data-feed="edge-1"]').textContent()).toContain("1.1.0");
    await page.close();
    expect(browser.problems).toEqual([]);
  }, 90_000);

  it("shows the collector's refusal of a downgrade in the form", async () => {
    const page = await open("#/fleet/rollouts");
    // The list holds the first test's rollout (to every feed: its selector is empty, so left out).
    await page.locator("tr[data-rollout]", { hasText: "every feed" }).waitFor();
    await page.getByRole("button", { name: "New rollout" }).click();
    await page.selectOption("#rollout-version", "0.9.0");
    await page.fill("#rollout-feeds", "edge-3");
    await page.getByRole("button", { name: "Start rollout" }).click();
    await page.getByText('edge-3 (1.0.0) runs a newer version than 0.9.0: a downgrade needs "force": true').waitFor();
    await page.close();
    // The refusal itself is logged by the browser as a failed request; nothing else went wrong.
    expect(browser.problems.filter((p) => !/status of 409 \(Conflict\) \(.*\/svc\/fleet\/rollouts\)/.test(p))).toEqual([]);
  }, 30_000);
});
