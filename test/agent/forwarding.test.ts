import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import mqtt from "mqtt";
import { afterEach, describe, expect, it } from "vitest";
import { type Agent, startAgent } from "../../agent/agent.ts";
import { type MetricType, TYPE_PATH } from "../../src/metrics/model.ts";
import { startTestCollector, type TestCollector } from "../helpers/collector.ts";
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

async function collector(values: Record<string, unknown>): Promise<TestCollector> {
  const col = await startTestCollector(values as never);
  cleanup.push(() => col.close());
  return col;
}

async function agentOn(broker: string, extra: Record<string, unknown> = {}): Promise<Agent> {
  const agent = await startAgent({ broker, tenant: "t1", feed: "edge-1", "data-dir": tempDir(), listen: "127.0.0.1:0", "log-level": "warn", interval: 60_000, "reconnect-max": 1000, ...extra });
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
    const col = await collector({ "mqtt-port": port, "mqtt-host": "127.0.0.1", "agent-credentials": ["t1:edge:pw"] });
    const agent = await agentOn(`mqtt://127.0.0.1:${port}`, { username: "edge", password: "pw", "batch-points": 1000 });
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

  it("delivers through an external broker (Mosquitto on 127.0.0.1:1883)", async () => {
    // A topic prefix of its own keeps parallel runs on the shared broker apart.
    const prefix = `test${crypto.randomUUID().slice(0, 8)}`;
    const col = await collector({ broker: "mqtt://127.0.0.1:1883", "topic-prefix": prefix });
    cleanup.push(async () => {
      // Clear the retained status the agent left on the shared broker.
      const c = await mqtt.connectAsync("mqtt://127.0.0.1:1883", { protocolVersion: 4, reconnectPeriod: 0 });
      await c.publishAsync(`${prefix}/t1/edge-1/status`, "", { qos: 1, retain: true });
      await c.endAsync();
    });
    const agent = await agentOn("mqtt://127.0.0.1:1883", { "topic-prefix": prefix });
    const from = Date.now() - 60_000;
    await push(agent, "m", 7000, from);
    await exactlyOnce(col, "m", 7000, from);
    await waitFor("presence", async () => ((await readAll(col, "availability", "edge-1:outpost_agent_up")).values.at(-1) === "up" ? true : undefined));
  });
});
