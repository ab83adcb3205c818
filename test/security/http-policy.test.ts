import { writeFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { readAuthFile, writeAuthFile } from "../../collector/auth/auth-file.ts";
import { hashPassword } from "../../collector/auth/secrets.ts";
import { basic } from "../helpers/auth.ts";
import { startTestCollector, type TestCollector } from "../helpers/collector.ts";
import { type SecuredCollector, securedCollector } from "./setup.ts";

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const c of open.splice(0)) await c.close();
});

async function secured(values: Record<string, unknown> = {}): Promise<SecuredCollector> {
  const s = await securedCollector(values);
  open.push(s);
  return s;
}

describe("repeated failures from one address are slowed down", () => {
  it("after --auth-failures failures: 429 with Retry-After, no password check; credentials verified before still pass", async () => {
    const s = await secured({ "auth-failures": 2 });
    const get = (authorization: string) => s.col.req("/svc/metrics/metrics", { tenant: "A", authorization });
    const metricsPage = () => s.col.req("/metrics", { authorization: s.as("scraper"), tenant: null });
    expect((await get(s.as("alice"))).status).toBe(204);
    expect((await metricsPage()).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await get(basic("alice", `guess-${i}`))).status).toBe(401);
    const refused = await get(basic("alice", "guess-2"));
    expect(refused.status).toBe(429);
    // Until the first failure is a minute old.
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThanOrEqual(59);
    expect(Number(refused.headers.get("Retry-After"))).toBeLessThanOrEqual(60);
    expect(((await refused.json()) as { errorMsg: string }).errorMsg).toMatch(/^Too many failed authentications from 127\.0\.0\.1; retry in \d+ s$/);
    // Even the right password of a credential not verified lately waits: guessing it is what is slowed.
    expect((await s.col.req("/svc/metrics/metrics", { tenant: "B", authorization: s.as("bob") })).status).toBe(429);
    // A client that logged in before keeps working.
    expect((await get(s.as("alice"))).status).toBe(204);
    const metrics = await (await metricsPage()).text();
    expect(Number(/^outpost_collector_auth_failures_total (\d+)/m.exec(metrics)?.[1])).toBe(4);
  });
});

describe("SIGHUP re-reads the auth file", () => {
  it("a new user works, a removed one is refused, and a broken file leaves the credentials in use", async () => {
    const s = await secured();
    const file = readAuthFile(s.path);
    file.users.dave = { password: await hashPassword("dave-pw"), tenants: ["A"] };
    delete file.users.alice;
    writeAuthFile(s.path, file);
    // Alice logged in before the change: remembered successes must not outlive it.
    expect((await s.col.req("/svc/metrics/metrics", { tenant: "A", authorization: s.as("alice") })).status).toBe(204);
    await s.col.reload();
    expect((await s.col.req("/svc/metrics/metrics", { tenant: "A", authorization: basic("dave", "dave-pw") })).status).toBe(204);
    expect((await s.col.req("/svc/metrics/metrics", { tenant: "A", authorization: s.as("alice") })).status).toBe(401);
    writeFileSync(s.path, "{ not json");
    await s.col.reload();
    expect((await s.col.req("/svc/metrics/metrics", { tenant: "A", authorization: basic("dave", "dave-pw") })).status).toBe(204);
  });
});

describe("revoking a credential", () => {
  it("ends the watch streams and websockets it opened; other credentials' stay open", async () => {
    const s = await secured({ "watch-heartbeat": 100 });
    const watch = await s.col.req("/svc/alerts/watch", { tenant: "A", authorization: s.as("alice") });
    const other = await s.col.req("/svc/alerts/watch", { tenant: "A", authorization: s.as("carol") });
    expect([watch.status, other.status]).toEqual([200, 200]);
    const ws = new WebSocket(`${s.col.url.replace("http", "ws")}/svc/inventory/ws/events?tenantId=A`, { headers: { Authorization: s.as("alice") } } as unknown as string[]);
    await new Promise<void>((resolve, reject) => {
      ws.onopen = () => resolve();
      ws.onerror = () => reject(new Error("websocket refused"));
    });
    const wsClosed = new Promise<number>((resolve) => {
      ws.onclose = (e) => resolve(e.code);
    });
    const file = readAuthFile(s.path);
    delete file.users.alice;
    writeAuthFile(s.path, file);
    await s.col.reload();
    expect(await wsClosed).toBe(1008);
    // The stream ends: reading it to the end terminates.
    await watch.text();
    const reader = other.body!.getReader();
    const beat = await Promise.race([reader.read().then(() => "open"), Bun.sleep(2000).then(() => "silent")]);
    expect(beat).toBe("open");
    await reader.cancel();
  });
});

describe("Location headers", () => {
  async function collector(values: Record<string, unknown>): Promise<TestCollector> {
    const c = await startTestCollector(values as never);
    open.push(c);
    return c;
  }
  const created = async (c: TestCollector, id: string, headers: Record<string, string>) => {
    const res = await c.req("/svc/metrics/gauges", { method: "POST", json: { id }, headers });
    expect(res.status).toBe(201);
    return res.headers.get("Location");
  };
  const forwarded = { "X-Forwarded-Host": "evil.example", "X-Forwarded-Proto": "https" };

  it("ignore X-Forwarded-Host/-Proto from a client that is not a trusted proxy", async () => {
    const c = await collector({});
    expect(await created(c, "g1", forwarded)).toBe(`${c.url}/svc/metrics/gauges/g1`);
  });

  it("follow them from a trusted proxy", async () => {
    const c = await collector({ "trusted-proxies": ["10.0.0.0/8", "127.0.0.1"] });
    expect(await created(c, "g2", { ...forwarded, "X-Forwarded-Host": "outpost.example.com" })).toBe("https://outpost.example.com/svc/metrics/gauges/g2");
  });

  it("use --external-url whatever the request says", async () => {
    const c = await collector({ "external-url": "https://metrics.example.org/" });
    expect(await created(c, "g3", forwarded)).toBe("https://metrics.example.org/svc/metrics/gauges/g3");
  });
});
