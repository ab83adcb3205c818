import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type Agent, startAgent } from "../../../agent/agent.ts";
import type { Alert } from "../../../src/alerts/model.ts";
import { body, startTestCollector, type TestCollector } from "../../helpers/collector.ts";
import { freePort, waitFor } from "../../helpers/ports.ts";

const FEED = "edge-1";
const TENANT = "acme";
const dirs: string[] = [];
let col: TestCollector;
let agent: Agent;

const api = (path: string, init: RequestInit & { json?: unknown } = {}) => col.req(`/svc/alerts${path}`, { ...init, tenant: TENANT });
const alerts = async (triggerId: string): Promise<Alert[]> => {
  const res = await api(`/?triggerIds=${triggerId}`);
  return res.status === 200 ? ((await res.json()) as Alert[]) : [];
};
const agentMetric = async (name: string): Promise<number> => {
  const text = await (await fetch(`${agent.url}/metrics`)).text();
  const m = new RegExp(`^${name} (\\S+)$`, "m").exec(text);
  return m ? Number(m[1]) : Number.NaN;
};
const localTriggers = (n: number) => waitFor(`${n} local triggers`, async () => ((await agentMetric("outpost_agent_local_triggers")) === n ? true : undefined));
let ts = Date.now() - 600_000;
const write = async (id: string, value: number) => {
  ts += 5000;
  const res = await fetch(`${agent.url}/svc/metrics/gauges/raw`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify([{ id, dataPoints: [{ timestamp: ts, value }] }]),
  });
  expect(res.status).toBe(200);
  return ts;
};
const threshold = (id: string, dataId: string, trigger: Record<string, unknown>) => ({
  trigger: { id, name: id, enabled: true, ...trigger },
  conditions: [{ type: "THRESHOLD", dataId, operator: "GT", threshold: 50 }],
});

beforeAll(async () => {
  const port = await freePort();
  col = await startTestCollector({ "mqtt-port": port, "mqtt-host": "127.0.0.1" });
  const dir = mkdtempSync(join(tmpdir(), "outpost-local-"));
  dirs.push(dir);
  agent = await startAgent({
    broker: `mqtt://127.0.0.1:${port}`,
    tenant: TENANT,
    feed: FEED,
    "data-dir": dir,
    listen: "127.0.0.1:0",
    "log-level": "warn",
    "host-metrics": false,
    "ack-timeout": 1000,
  });
});

afterAll(async () => {
  await agent.stop();
  await col.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("local triggers through the collector", () => {
  test("a trigger whose source is the feed is pushed, fires on the agent, and its alert is stored once with its evaluations", async () => {
    const created = await api("/triggers/trigger", { method: "POST", json: threshold("hot", `${FEED}:temp`, { source: FEED }) });
    expect(created.status).toBe(200);
    await localTriggers(1);
    const at = await write(`${FEED}:temp`, 90);
    const [alert] = await waitFor("the alert at the collector", async () => {
      const a = await alerts("hot");
      return a.length > 0 ? a : undefined;
    });
    expect(alert).toMatchObject({ tenantId: TENANT, status: "OPEN", dataSource: FEED, trigger: { id: "hot", source: FEED } });
    expect(alert?.evalSets?.[0]?.[0]).toMatchObject({ type: "THRESHOLD", value: 90, dataTimestamp: at });
    // The point reached the collector too; its engine must not fire the agent's trigger again.
    await waitFor("the point stored at the collector", async () => {
      const res = await col.req(`/svc/metrics/gauges/${encodeURIComponent(`${FEED}:temp`)}/raw?start=0`, { tenant: TENANT });
      return res.status === 200 ? true : undefined;
    });
    await write(`${FEED}:temp`, 95);
    await waitFor("the second alert", async () => ((await alerts("hot")).length === 2 ? true : undefined));
    await Bun.sleep(300);
    expect((await alerts("hot")).map((a) => a.evalSets?.[0]?.[0] && (a.evalSets[0][0] as { value: number }).value).sort()).toEqual([90, 95]);
  });

  test("changes reach the agent: a disabled trigger stops firing, a deleted one is removed", async () => {
    const current = (await body(await api("/triggers/trigger/hot"))) as { trigger: Record<string, unknown> };
    const upd = await api("/triggers/trigger/hot", { method: "PUT", json: { ...current, trigger: { ...current.trigger, enabled: false } } });
    expect(upd.status).toBe(200);
    // The agent reloads it disabled; the count stays 1, so wait for the evaluation to stop.
    await waitFor("disabled on the agent", async () => {
      const before = (await alerts("hot")).length;
      await write(`${FEED}:temp`, 99);
      await Bun.sleep(300);
      return (await alerts("hot")).length === before ? true : undefined;
    });
    expect((await api("/triggers/hot", { method: "DELETE" })).status).toBe(200);
    await localTriggers(0);
  });

  test("a trigger without the feed as source stays at the collector and fires there, once", async () => {
    const res = await api("/triggers/trigger", { method: "POST", json: threshold("central", `${FEED}:pressure`, { tags: { feed: FEED } }) });
    expect(res.status).toBe(200);
    await write(`${FEED}:pressure`, 80);
    await waitFor("the collector's alert", async () => ((await alerts("central")).length === 1 ? true : undefined));
    expect(await agentMetric("outpost_agent_local_triggers")).toBe(0);
    expect(await agentMetric("outpost_agent_events_fired_total")).toBe(2);
  });
});
