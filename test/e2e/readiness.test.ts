import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { writeTestAuthFile } from "../helpers/auth.ts";
import { PostgresProxy } from "../helpers/postgres.ts";
import { waitFor } from "../helpers/ports.ts";
import { Running, portOf } from "../helpers/program.ts";
import { DatabaseCluster } from "./database-cluster.ts";

/**
 * /ready against real collector processes: 503 while the collector cannot serve (PostgreSQL
 * unreachable: a TCP proxy in front of it is cut, as in test/e2e/postgres-restart.test.ts), 200
 * otherwise; /health, the liveness check, stays 200 meanwhile.
 */
const cluster = new DatabaseCluster("ready");
beforeAll(() => cluster.setUp({ broker: false }));
afterAll(() => cluster.tearDown());
let proxy: PostgresProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
});

const status = async (url: string) => {
  const r = await fetch(url);
  return { code: r.status, body: (await r.json()) as { status: string; storage?: string; reason?: string } };
};

describe("readiness", () => {
  it("a collector on PostgreSQL: /ready 503 while the database cannot be reached, 200 again once it can; /health stays 200", async () => {
    proxy = await new PostgresProxy().start();
    const c = await cluster.startCollector({ urlFile: cluster.writeUrlFile(cluster.db.urlVia(proxy.port)) });
    expect(await status(`${c.url}/ready`)).toEqual({ code: 200, body: { status: "READY", storage: "ok" } });
    await proxy.cut();
    // Nothing has failed yet: /ready asks the database itself.
    const down = await waitFor("/ready to say 503", async () => {
      const s = await status(`${c.url}/ready`);
      return s.code === 503 ? s : undefined;
    }, 15_000, 200);
    expect(down.body.status).toBe("NOT_READY");
    expect(down.body.reason).toMatch(/the database cannot be reached/);
    expect((await status(`${c.url}/health`)).code).toBe(200);
    // Reads fail meanwhile: a load balancer that asks /ready sends nothing here.
    expect((await fetch(`${c.url}/svc/metrics/gauges/x/raw`, { headers: { "Svc-Tenant": "acme" } })).status).toBe(503);
    await proxy.restore();
    await waitFor("/ready to say 200 again", async () => ((await status(`${c.url}/ready`)).code === 200 ? true : undefined), 30_000, 200);
    expect((await status(`${c.url}/health`)).code).toBe(200);
  }, 90_000);

  it("a collector on SQLite: /ready 200 once started, and open without credentials like /health", async () => {
    const p = Running.start("collector", ["--data-dir", cluster.folder(), "--http-port", "0", "--mqtt-port", "0", "--auth-file", await authFile()]);
    cluster.procs.push(p);
    const line = await p.waitForLine(/HTTP listening/, 30_000);
    await p.waitForLine(/collector ready/, 30_000);
    const url = `http://127.0.0.1:${portOf(line)}`;
    expect(await status(`${url}/ready`)).toEqual({ code: 200, body: { status: "READY", storage: "ok" } });
    expect((await fetch(`${url}/svc/metrics/gauges`, { headers: { "Svc-Tenant": "acme" } })).status).toBe(401);
  }, 60_000);
});

async function authFile(): Promise<string> {
  return (await writeTestAuthFile([{ name: "alice", password: "alice-password-1", tenants: ["acme"] }])).path;
}
