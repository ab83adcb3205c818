import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Agent, startAgent } from "../../agent/agent.ts";
import { onSiteSessions } from "../../agent/http/on-site/read-scope.ts";
import type { OptionValues } from "../../src/config/options.ts";
import { bearer } from "../helpers/auth.ts";
import { Running } from "../helpers/program.ts";

/**
 * The agent's on-site view (docs/console.md, "On site"; docs/security.md, "The agent's
 * on-site view"): what its open paths give away, the api token's login, and a session that
 * reads and never writes.
 */
const TOKEN = "on-site-token-51c0e7a9d2b4";
const dir = mkdtempSync(join(tmpdir(), "outpost-on-site-sec-"));
const agents: Agent[] = [];

async function agentWith(o: OptionValues): Promise<Agent> {
  const a = await startAgent({
    broker: "mqtt://127.0.0.1:1",
    "host-metrics": false,
    tenant: "t1",
    feed: "edge-1",
    "data-dir": join(dir, crypto.randomUUID()),
    listen: "127.0.0.1:0",
    "log-level": "silent",
    interval: 60_000,
    ...o,
  });
  agents.push(a);
  return a;
}

let agent: Agent;
beforeAll(async () => {
  const tokenFile = join(dir, "token");
  writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
  agent = await agentWith({ "api-token-file": tokenFile });
  const w = await fetch(`${agent.url}/svc/metrics/gauges/g/raw`, { method: "POST", headers: { Authorization: bearer(TOKEN), "Content-Type": "application/json" }, body: JSON.stringify([{ timestamp: Date.now(), value: 1 }]) });
  expect(w.status).toBe(200);
});
afterAll(async () => {
  for (const a of agents) await a.stop();
  rmSync(dir, { recursive: true, force: true });
});

const CONSOLE = { "X-Outpost-Console": "1" };
const login = (body: string, headers: Record<string, string> = { ...CONSOLE, "Content-Type": "application/json" }, url = agent.url) =>
  fetch(`${url}/console/api/login`, { method: "POST", headers, body });
async function session(): Promise<string> {
  const res = await login(JSON.stringify({ token: TOKEN }));
  expect(res.status).toBe(200);
  return /^(outpost_on_site=[^;]+);/.exec(res.headers.get("Set-Cookie") ?? "")![1]!;
}
const withCookie = (cookie: string, path: string, init: RequestInit = {}) => fetch(`${agent.url}${path}`, { ...init, headers: { Cookie: cookie, "Content-Type": "application/json", ...init.headers } });

describe("the on-site view's open paths", () => {
  it("serve the page, its assets and who it is (the feed), nothing of the data", async () => {
    const page = await fetch(`${agent.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get("Cache-Control")).toBe("no-store");
    expect(page.headers.get("X-Frame-Options")).toBe("DENY");
    const html = await page.text();
    const embedded = JSON.parse(/<script type="application\/json" id="outpost-session">(.*?)<\/script>/.exec(html)![1]!);
    expect(embedded).toEqual({ authRequired: true, authenticated: false, version: expect.any(String), onSite: { feed: "edge-1", windowMs: 86_400_000 } });
    const script = /src="\.\/(console\/assets\/[^"]+\.js)"/.exec(html)![1]!;
    expect((await fetch(`${agent.url}/${script}`)).headers.get("Cache-Control")).toContain("immutable");
    expect((await fetch(`${agent.url}/console`, { redirect: "manual" })).headers.get("Location")).toBe("console/");
    expect(await (await fetch(`${agent.url}/console/`)).text()).toContain('<meta name="outpost-root" content="../">');
    for (const path of ["/console/api/status", "/svc/metrics/metrics", "/api/v1/query?query=g"]) expect((await fetch(`${agent.url}${path}`)).status).toBe(401);
  });

  it("answer a request for a name the agent is not known by 403 (DNS rebinding), and another site's login 400", async () => {
    expect((await fetch(`${agent.url}/`, { headers: { Host: "evil.example:8181" } })).status).toBe(403);
    const foreign = await login(JSON.stringify({ token: TOKEN }), { ...CONSOLE, "Content-Type": "application/json", Origin: "http://evil.example" });
    expect(foreign.status).toBe(400);
    expect(foreign.headers.get("Set-Cookie")).toBeNull();
    expect(foreign.headers.get("Access-Control-Allow-Origin")).toBeNull();
  });
});

describe("the api token's login", () => {
  it("needs the console's header and a JSON body, and refuses a wrong token", async () => {
    expect((await login(JSON.stringify({ token: TOKEN }), { "Content-Type": "application/json" })).status).toBe(400);
    expect((await login(`token=${TOKEN}`, { ...CONSOLE, "Content-Type": "application/x-www-form-urlencoded" })).status).toBe(415);
    expect((await login("{}")).status).toBe(400);
    const wrong = await login(JSON.stringify({ token: "guess" }));
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({ errorMsg: "Wrong api token" });
    expect(wrong.headers.get("Set-Cookie")).toBeNull();
  });

  it("sets a cookie scripts cannot read and other sites cannot send, over plain HTTP", async () => {
    const res = await login(JSON.stringify({ token: TOKEN }));
    const set = res.headers.get("Set-Cookie") ?? "";
    expect(set).toMatch(/^outpost_on_site=[A-Za-z0-9_-]{43}; /);
    expect(set).toContain("HttpOnly");
    expect(set).toContain("SameSite=Strict");
    expect(set).toContain("Path=/");
    expect(set).not.toContain("Expires");
    expect(await res.json()).toMatchObject({ authenticated: true, onSite: { tenant: "t1", feed: "edge-1" }, tenants: ["t1"] });
  });
});

describe("an on-site session", () => {
  it("reads: the metrics reads, the Prometheus API, /metrics and the status", async () => {
    const c = await session();
    expect((await withCookie(c, `/svc/metrics/gauges/g/raw?start=0`)).status).toBe(200);
    expect((await withCookie(c, "/hawkular/metrics/metrics")).status).toBe(200);
    expect((await withCookie(c, "/api/v1/query?query=g")).status).toBe(200);
    expect((await withCookie(c, "/prometheus/t1/api/v1/labels")).status).toBe(200);
    expect((await withCookie(c, "/metrics")).status).toBe(200);
    const status = (await (await withCookie(c, "/console/api/status")).json()) as Record<string, unknown>;
    expect(status).toMatchObject({ tenant: "t1", feed: "edge-1", connected: false, broker: "mqtt://127.0.0.1:1", history: { windowMs: 86_400_000 } });
    expect(status.downSince).toEqual(expect.any(Number));
    // Another tenant is refused as it is with the token.
    expect((await withCookie(c, "/svc/metrics/metrics", { headers: { "Svc-Tenant": "t2" } })).status).toBe(403);
  });

  it("never writes: every other method and path is 403", async () => {
    const c = await session();
    const point = JSON.stringify([{ timestamp: Date.now(), value: 2 }]);
    for (const [method, path, body] of [
      ["POST", "/svc/metrics/gauges/g/raw", point],
      ["POST", "/svc/metrics/gauges/raw", JSON.stringify([{ id: "g", data: [{ timestamp: Date.now(), value: 2 }] }])],
      ["POST", "/svc/metrics/gauges/raw/query", JSON.stringify({ ids: ["g"] })],
      ["POST", "/api/v1/query", "query=g"],
      ["PUT", "/svc/metrics/gauges/g/tags", JSON.stringify({ a: "b" })],
      ["DELETE", "/svc/metrics/gauges/g", undefined],
      ["POST", "/api/v2/write?bucket=b", "m v=1"],
      ["GET", "/ping", undefined],
    ] as const) {
      const res = await withCookie(c, path, { method, body });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(((await res.json()) as { errorMsg: string }).errorMsg).toMatch(/reads only/);
    }
    // The header, when there is one, decides: a wrong token with a good cookie is refused.
    expect((await withCookie(c, "/svc/metrics/metrics", { headers: { Authorization: bearer("nope") } })).status).toBe(401);
  });

  it("ends at logout (which needs the console's header), and a 401 to the page carries no Basic challenge", async () => {
    const c = await session();
    expect((await withCookie(c, "/console/api/logout", { method: "POST" })).status).toBe(400);
    const out = await withCookie(c, "/console/api/logout", { method: "POST", headers: CONSOLE });
    expect(out.status).toBe(204);
    expect(out.headers.get("Set-Cookie")).toMatch(/^outpost_on_site=; Max-Age=0/);
    const ended = await withCookie(c, "/svc/metrics/metrics", { headers: CONSOLE });
    expect(ended.status).toBe(401);
    expect(ended.headers.get("WWW-Authenticate")).toBe('Bearer realm="outpost-agent"');
    expect(((await ended.json()) as { errorMsg: string }).errorMsg).toMatch(/session has ended/);
    expect((await fetch(`${agent.url}/svc/metrics/metrics`)).headers.get("WWW-Authenticate")).toContain("Basic");
  });

  it("ends after 12 hours unused and 7 days whatever the use", () => {
    let now = 0;
    const sessions = onSiteSessions(() => now);
    const { token } = sessions.open({ address: "127.0.0.1" }, new AbortController().signal);
    for (let h = 11; h < 7 * 24; h += 11) {
      now = h * 3_600_000;
      expect(sessions.find(token)).toBeDefined();
    }
    now = 7 * 24 * 3_600_000 + 1;
    expect(sessions.find(token)).toBeUndefined();
    const idle = sessions.open({ address: "127.0.0.1" }, new AbortController().signal);
    now += 12 * 3_600_000 + 1;
    expect(sessions.find(idle.token)).toBeUndefined();
  });
});

describe("configurations", () => {
  it("without an api token (loopback only) the view needs no login, as any local client", async () => {
    const open = await agentWith({});
    const s = (await (await fetch(`${open.url}/console/api/session`)).json()) as Record<string, unknown>;
    expect(s).toMatchObject({ authRequired: false, authenticated: true, tenants: ["t1"], onSite: { tenant: "t1", feed: "edge-1" } });
    expect((await fetch(`${open.url}/console/api/status`)).status).toBe(200);
    expect((await login(JSON.stringify({ token: "x" }), undefined, open.url)).status).toBe(400);
  });

  it("served beyond loopback, a short api token is warned about at start", async () => {
    const start = async (token: string) => {
      const args = ["--tenant", "t1", "--feed", "f", "--broker", "mqtt://127.0.0.1:1", "--listen", "0.0.0.0:0", "--data-dir", join(dir, crypto.randomUUID())];
      const agent = Running.start("agent", args, { env: { OUTPOST_AGENT_API_TOKEN: token } });
      await agent.waitForLine(/agent started/);
      await agent.stop("SIGTERM");
      return agent.lines.join("\n");
    };
    expect(await start("pump123")).toMatch(/WARN .*the api token has 7 characters: on 0\.0\.0\.0, anyone on the network may guess at it; use a random one of 20 or more \(openssl rand -hex 16\)/);
    expect(await start("0f9c2e4b7a1d3c5e8f6a0b2d4c6e8a1f")).not.toMatch(/the api token has/);
  }, 30_000);

  it("console = false, or the local window off, serve no page", async () => {
    for (const o of [{ console: false }, { history: { window: 0 } }]) {
      const a = await agentWith(o);
      expect((await fetch(`${a.url}/`)).status).toBe(404);
      expect((await fetch(`${a.url}/console/api/session`)).status).toBe(404);
    }
  });
});
