import { request } from "node:http";
import { type BrowserContext, chromium } from "playwright-core";
import { afterEach, describe, expect, it } from "vitest";
import { writeTestAuthFile } from "../helpers/auth.ts";
import { freePort, waitFor } from "../helpers/ports.ts";
import { CHROMIUM, CHROMIUM_FLAGS } from "./browser.ts";
import { BUN, Proc, System, waitHealthy } from "./harness.ts";

/**
 * What a web page open in a browser on the collector's machine can do to the collector and the
 * agent there, in a real Chromium. `evil.example` is made to resolve to 127.0.0.1 (Chromium's
 * --host-resolver-rules), as an attacker's DNS does in a rebinding: first a page of that name,
 * served by the attacker, calls the collector across origins; then a page of that name on the
 * collector's own port calls it "same-origin". Both must get nothing, and write nothing.
 */
let sys: System | undefined;
let browser: BrowserContext | undefined;
let server: ReturnType<typeof Bun.serve> | undefined;
let proc: Proc | undefined;
afterEach(async () => {
  await browser?.close();
  browser = undefined;
  server?.stop(true);
  server = undefined;
  await sys?.stop();
  sys = undefined;
  await proc?.kill("SIGKILL");
  proc = undefined;
});

async function launch(): Promise<BrowserContext> {
  const dir = Bun.spawnSync(["mktemp", "-d"]).stdout.toString().trim();
  return chromium.launchPersistentContext(dir, { executablePath: CHROMIUM, headless: true, args: [...CHROMIUM_FLAGS, "--host-resolver-rules=MAP evil.example 127.0.0.1"] });
}

/** What a fetch from the page gets: its status and body, or that the browser withheld the answer. */
type Seen = { status: number; text: string } | { blocked: string };

async function writeDirect(url: string, metric: string): Promise<number> {
  const r = await fetch(`${url}/svc/metrics/gauges/${metric}/raw`, { method: "POST", body: JSON.stringify([{ timestamp: Date.now(), value: 31337.25 }]), headers: { "Content-Type": "application/json", "Svc-Tenant": "acme" } });
  return r.status;
}

describe("a web page in a browser on the same machine", () => {
  it("gets nothing from the collector or the agent without an auth file: no CORS for other origins, no DNS rebinding", async () => {
    sys = new System({ broker: "embedded", tenant: "acme", feed: "edge-browser" });
    await sys.start();
    const s = sys;
    expect(await writeDirect(s.collectorUrl, "secret")).toBe(200);
    const collectorPort = new URL(s.collectorUrl).port;
    const agentPort = new URL(s.agentUrl).port;
    // The attacker's own site.
    server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("<!doctype html><title>evil</title>", { headers: { "Content-Type": "text/html" } }) });
    browser = await launch();
    const page = await browser.newPage();

    // 1. From the attacker's origin, across origins: read, and write with a form-like request.
    await page.goto(`http://evil.example:${server.port}/`);
    const cross = await page.evaluate(
      async ({ collector, agent }) => {
        // Runs in the page: the functions it uses are defined here.
        const g = globalThis as unknown as { fetch: typeof fetch };
        const read = async (): Promise<Seen> => {
          try {
            const r = await g.fetch(`${collector}/svc/metrics/gauges/secret/raw`, { headers: { "Hawkular-Tenant": "acme" } });
            return { status: r.status, text: await r.text() };
          } catch (e) {
            return { blocked: String(e) };
          }
        };
        // A "simple" POST needs no preflight: the browser sends it whatever CORS says.
        const post = (url: string) => g.fetch(url, { method: "POST", mode: "no-cors", body: JSON.stringify([{ timestamp: Date.now(), value: 666 }]), headers: { "Content-Type": "text/plain" } }).then(() => "sent", String);
        return { read: await read(), collectorWrite: await post(`${collector}/svc/metrics/gauges/planted/raw?tenant=acme`), agentWrite: await post(`${agent}/svc/metrics/gauges/planted-agent/raw`) };
      },
      { collector: `http://127.0.0.1:${collectorPort}`, agent: `http://127.0.0.1:${agentPort}` },
    );
    expect(cross.read).toHaveProperty("blocked");

    // 2. DNS rebinding: a page of the attacker's name on the collector's port is "same-origin".
    await page.goto(`http://evil.example:${collectorPort}/health`);
    const rebound = await page.evaluate(async () => {
      const g = globalThis as unknown as { fetch: typeof fetch };
      const r = await g.fetch("/svc/metrics/gauges/secret/raw", { headers: { "Hawkular-Tenant": "acme" } });
      const w = await g.fetch("/svc/metrics/gauges/planted-rebound/raw", { method: "POST", body: JSON.stringify([{ timestamp: Date.now(), value: 666 }]), headers: { "Content-Type": "application/json", "Hawkular-Tenant": "acme" } });
      return { read: r.status, body: await r.text(), write: w.status };
    });
    expect(rebound.read).toBe(403);
    expect(rebound.body).not.toContain("31337");
    expect(rebound.write).toBe(403);
    await page.goto(`http://evil.example:${agentPort}/health`);
    const reboundAgent = await page.evaluate(async () => {
      const g = globalThis as unknown as { fetch: typeof fetch };
      const w = await g.fetch("/svc/metrics/gauges/planted-agent-rebound/raw", { method: "POST", body: JSON.stringify([{ timestamp: Date.now(), value: 666 }]), headers: { "Content-Type": "application/json" } });
      return w.status;
    });
    expect(reboundAgent).toBe(403);

    // Nothing the page sent was stored (the agent forwards within a second or two).
    await Bun.sleep(3000);
    for (const id of ["planted", "planted-agent", "planted-rebound", "planted-agent-rebound"]) {
      const r = await fetch(`${s.collectorUrl}/svc/metrics/gauges/${id}/raw`, { headers: { "Svc-Tenant": "acme" } });
      expect(r.status, id).toBe(204);
    }
    // Clients that are not browsers (no Origin), by address or by localhost, are served as before.
    expect((await fetch(`${s.collectorUrl}/svc/metrics/gauges/secret/raw`, { headers: { "Svc-Tenant": "acme" } })).status).toBe(200);
    expect((await fetch(`http://localhost:${collectorPort}/svc/metrics/gauges/secret/raw`, { headers: { "Svc-Tenant": "acme" } })).status).toBe(200);
    expect(await writeDirect(s.agentUrl, "from-a-script")).toBe(200);
  }, 120_000);

  it("with an auth file too: a request for a foreign host name is refused, credentials or not", async () => {
    const auth = await writeTestAuthFile([{ name: "alice", password: "alice-password-1", tenants: ["acme"] }]);
    const port = await freePort();
    proc = new Proc("collector", [BUN, "collector/main.ts", "--http-port", String(port), "--mqtt-port", "0", "--data-dir", `${auth.dir}/data`, "--auth-file", auth.path, "--log-level", "info"], auth.dir);
    proc.start();
    await waitHealthy(`http://127.0.0.1:${port}`, proc);
    const get = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const r = request({ host: "127.0.0.1", port, path: "/svc/metrics/metrics", headers: { Host: host, "Svc-Tenant": "acme", Authorization: `Basic ${btoa("alice:alice-password-1")}` } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        r.on("error", reject);
        r.end();
      });
    expect(await get(`evil.example:${port}`)).toBe(403);
    expect(await get(`127.0.0.1:${port}`)).toBe(204);
    expect(await get(`localhost:${port}`)).toBe(204);
    const log = await waitFor("the refusal logged", async () => {
      const text = await Bun.file(`${auth.dir}/collector-1.log`).text();
      return text.includes("evil.example") ? text : undefined;
    });
    expect(log).toMatch(/refused a request for a host name this server does not know .* host=evil\.example/);
  }, 60_000);
});
