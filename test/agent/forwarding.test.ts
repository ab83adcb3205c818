import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type Agent, startAgent } from "../../agent/agent.ts";
import { type MetricType, TYPE_PATH } from "../../src/metrics/model.ts";
import { basic, writeTestAuthFile } from "../helpers/auth.ts";
import { startTestCollector, type TestCollector } from "../helpers/collector.ts";
import { startMosquitto } from "../helpers/mosquitto.ts";
import { freePort, waitFor } from "../helpers/ports.ts";

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "outpost-fwd-"));
  cleanup.push(() => rmSync(d, { recursive: true, force: true }));
  return d;
}

async function collector(values: Record<string, unknown>, authorization?: string): Promise<TestCollector> {
  const col = await startTestCollector(values as never, undefined, authorization);
  cleanup.push(() => col.close());
  return col;
}

async function agentOn(broker: string, extra: Record<string, unknown> = {}): Promise<Agent> {
  // Host metrics off: these tests count what they push and the agent's own metrics.
  const agent = await startAgent({ broker, tenant: "t1", feed: "edge-1", "data-dir": tempDir(), listen: "127.0.0.1:0", "log-level": "warn", interval: 60_000, "reconnect-max": 1000, "host-metrics": false, ...extra });
  cleanup.push(() => agent.stop());
  return agent;
}

async function push(agent: Agent, id: string, n: number, from: number) {
  const res = await fetch(`${agent.url}/svc/metrics/gauges/raw`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify([{ id, dataPoints: Array.from({ length: n }, (_, i) => ({ timestamp: from + i, value: i })) }]),
  });
  expect(res.status).toBe(200);
}

/** A series read back over HTTP, oldest first. */
async function readAll(col: TestCollector, type: MetricType, id: string): Promise<{ ts: number[]; values: (number | string)[] }> {
  const res = await col.req(`/svc/metrics/${TYPE_PATH[type]}/${encodeURIComponent(id)}/raw?start=0&end=${Date.now() + 3_600_000}&order=ASC&limit=100000`);
  if (res.status === 204) return { ts: [], values: [] };
  expect(res.status).toBe(200);
  const pts = (await res.json()) as { timestamp: number; value: number | string }[];
  return { ts: pts.map((p) => p.timestamp), values: pts.map((p) => p.value) };
}

async function exactlyOnce(col: TestCollector, id: string, n: number, from: number) {
  const got = await waitFor(`${n} points of ${id}`, async () => {
    const r = await readAll(col, "gauge", id);
    return r.ts.length >= n ? r : undefined;
  });
  expect(got.ts).toEqual(Array.from({ length: n }, (_, i) => from + i));
  expect(got.values).toEqual(Array.from({ length: n }, (_, i) => i));
}

describe("agent → collector forwarding", () => {
  it("delivers through the embedded broker with agent credentials, and reports presence", async () => {
    const port = await freePort();
    const auth = await writeTestAuthFile([
      { name: "edge", password: "pw", agent: { tenant: "t1", feed: "edge-1" } },
      { name: "reader", password: "r", tenants: ["t1"] },
    ]);
    cleanup.push(() => rmSync(auth.dir, { recursive: true, force: true }));
    const col = await collector({ "mqtt-port": port, "mqtt-host": "127.0.0.1", "auth-file": auth.path }, basic("reader", "r"));
    // The password as systemd or a secrets manager hands it over: in a file.
    const pwFile = join(tempDir(), "password");
    writeFileSync(pwFile, "pw\n", { mode: 0o600 });
    const agent = await agentOn(`mqtt://127.0.0.1:${port}`, { username: "edge", "password-file": pwFile, "batch-points": 1000 });
    const from = Date.now() - 60_000;
    await push(agent, "g", 12_345, from);
    await exactlyOnce(col, "g", 12_345, from);
    await waitFor("empty buffer", async () => ((await (await fetch(`${agent.url}/metrics`)).text()).includes("\noutpost_agent_buffer_points 0\n") ? true : undefined));
    expect((await readAll(col, "availability", "edge-1:outpost_agent_up")).values.at(-1)).toBe("up");
    await agent.stop();
    await waitFor("down", async () => ((await readAll(col, "availability", "edge-1:outpost_agent_up")).values.at(-1) === "down" ? true : undefined));
  });

  it("stores the agent's own metrics as metrics of its feed", async () => {
    const port = await freePort();
    const col = await collector({ "mqtt-port": port, "mqtt-host": "127.0.0.1" });
    await agentOn(`mqtt://127.0.0.1:${port}`, { interval: 200 });
    const acked = await waitFor("agent self-metrics", async () => {
      const r = await readAll(col, "counter", "edge-1:outpost_agent_points_acked_total");
      return r.values.some((v) => Number(v) > 0) ? r : undefined;
    });
    expect(acked.ts.length).toBeGreaterThan(1);
    const depth = await readAll(col, "gauge", "edge-1:outpost_agent_buffer_points");
    expect(depth.ts.length).toBeGreaterThan(0);
  });

  it("delivers through an external broker (a private Mosquitto)", async () => {
    const mosquitto = await startMosquitto();
    cleanup.push(() => mosquitto.stop());
    const col = await collector({ broker: mosquitto.url });
    const agent = await agentOn(mosquitto.url);
    const from = Date.now() - 60_000;
    await push(agent, "m", 7000, from);
    await exactlyOnce(col, "m", 7000, from);
    await waitFor("presence", async () => ((await readAll(col, "availability", "edge-1:outpost_agent_up")).values.at(-1) === "up" ? true : undefined));
  });
});
