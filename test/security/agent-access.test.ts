import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Agent, startAgent } from "../../agent/agent.ts";
import { basic, bearer } from "../helpers/auth.ts";

/** Issue 15 item 6: the agent's local write API and its broker password. */
const TOKEN = "agent-token-0123456789";
let agent: Agent;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "outpost-agent-sec-"));
  const tokenFile = join(dir, "token");
  writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
  agent = await startAgent({
    broker: "mqtt://127.0.0.1:1",
    "host-metrics": false,
    tenant: "t1",
    feed: "edge-1",
    "data-dir": join(dir, "buffer"),
    listen: "127.0.0.1:0",
    "api-token-file": tokenFile,
    "log-level": "silent",
    interval: 60_000,
  });
});
afterAll(async () => {
  await agent.stop();
  rmSync(dir, { recursive: true, force: true });
});

const write = (authorization?: string) =>
  fetch(`${agent.url}/svc/metrics/gauges/raw`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...(authorization ? { Authorization: authorization } : {}) },
    body: JSON.stringify([{ id: "g", dataPoints: [{ timestamp: Date.now(), value: 1 }] }]),
  });

describe("agent local write API with an api token", () => {
  it("refuses no or a wrong token with 401 and an errorMsg", async () => {
    for (const auth of [undefined, bearer("nope"), basic("any", "nope")]) {
      const res = await write(auth);
      expect(res.status).toBe(401);
      expect(res.headers.get("WWW-Authenticate")).toContain("Bearer");
      expect(((await res.json()) as { errorMsg: string }).errorMsg).toBeTruthy();
    }
    expect((await fetch(`${agent.url}/metrics`)).status).toBe(401);
  });

  it("accepts the token as a bearer token or as a Basic password; /health stays open", async () => {
    expect((await write(bearer(TOKEN))).status).toBe(200);
    expect((await write(basic("grafana", TOKEN))).status).toBe(200);
    expect((await fetch(`${agent.url}/metrics`, { headers: { Authorization: bearer(TOKEN) } })).status).toBe(200);
    expect((await fetch(`${agent.url}/health`)).status).toBe(200);
  });
});

async function runAgent(args: string[], env: Record<string, string> = {}) {
  const p = Bun.spawn([process.execPath, "agent/main.ts", "--tenant", "t1", "--feed", "f", "--data-dir", join(dir, `run-${crypto.randomUUID()}`), "--log-level", "info", ...args], {
    stdout: "ignore",
    stderr: "pipe",
    env: { ...process.env, ...env },
  });
  let err = "";
  const reader = p.stderr.getReader();
  const deadline = Date.now() + 10_000;
  while (!err.includes("agent started") && Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    err += new TextDecoder().decode(value);
  }
  if (p.exitCode === null) p.kill("SIGTERM");
  return { code: await p.exited, err };
}

describe("agent command line", () => {
  it("refuses the broker password as a flag, and takes it from the environment", async () => {
    const flag = await runAgent(["--password", "hunter2"]);
    expect(flag.code).toBe(2);
    expect(flag.err).toMatch(/--password is not accepted on the command line.*OUTPOST_AGENT_PASSWORD.*--password-file/);
    const env = await runAgent(["--broker", "mqtt://127.0.0.1:1", "--listen", ""], { OUTPOST_AGENT_PASSWORD: "hunter2" });
    expect(env.err).toContain("agent started");
    expect(env.err).not.toContain("hunter2");
  });

  it("listens on loopback unless given a token or --insecure", async () => {
    const open = await runAgent(["--listen", "0.0.0.0:0", "--broker", "mqtt://127.0.0.1:1"]);
    expect(open.code).toBe(2);
    expect(open.err).toMatch(/refusing to serve the local write API on 0\.0\.0\.0 without an api-token/);
    const insecure = await runAgent(["--listen", "0.0.0.0:0", "--broker", "mqtt://127.0.0.1:1", "--insecure"]);
    expect(insecure.err).toMatch(/WARN .*--insecure: the local write API on 0\.0\.0\.0 accepts anyone/);
    const tokened = await runAgent(["--listen", "0.0.0.0:0", "--broker", "mqtt://127.0.0.1:1"], { OUTPOST_AGENT_API_TOKEN: TOKEN });
    expect(tokened.err).toContain("agent started");
    // (An unreachable broker may be warned about after the start; nothing before it.)
    expect(tokened.err.split("agent started")[0]).not.toContain("WARN");
  });
});
