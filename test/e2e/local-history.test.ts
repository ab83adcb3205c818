/**
 * Whole system: collector, agent and a private Mosquitto as separate processes. The agent keeps
 * what the collector acknowledged for its local window and, with what waits during an outage,
 * answers reads of its own series on its local API. Once the backlog has drained, the same
 * reads at the collector give the same answers: the same points, the same stats, the same
 * PromQL results.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, onTestFailed, test } from "vitest";
import { waitFor } from "../helpers/ports.ts";
import { System } from "./harness.ts";

const TENANT = "e2e-history";
const FEED = "edge-history";
const TOKEN = "local-token-for-the-technician";
const sys = new System({ broker: "mosquitto", tenant: TENANT, feed: FEED, agentEnv: { OUTPOST_AGENT_API_TOKEN: TOKEN } });

const agent = (path: string, init: RequestInit = {}) => fetch(`${sys.agentUrl}${path}`, { ...init, headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json", ...init.headers } });
const collector = (path: string, init: RequestInit = {}) =>
  fetch(`${sys.collectorUrl}${path}`, { ...init, headers: { "Svc-Tenant": TENANT, "Content-Type": "application/json", ...init.headers } });
const agentMetric = async (name: string): Promise<number | undefined> => {
  const res = await agent("/metrics").catch(() => undefined);
  const m = res && new RegExp(`^${name} (\\S+)$`, "m").exec(await res.text());
  return m ? Number(m[1]) : undefined;
};
const json = async (r: Response) => (r.status === 204 ? null : await r.json());

const T0 = Date.now() - 30 * 60_000;
const temp = `${FEED}:temperature`;
const runs = `${FEED}:pump_runs_total`;
const door = `${FEED}:door`;
const state = `${FEED}:state`;

async function write(path: string, body: unknown) {
  const r = await agent(path, { method: "POST", body: JSON.stringify(body) });
  expect(r.status, await r.clone().text()).toBe(200);
}

/** Points of the four types, minute `from` to `to` of the half hour; a rewritten timestamp too (the later value wins). */
async function writeMinutes(from: number, to: number) {
  const ts = (m: number, s: number) => T0 + m * 60_000 + s * 1000;
  const gauges = [];
  const counters = [];
  for (let m = from; m < to; m++) {
    for (let s = 0; s < 60; s += 5) {
      gauges.push({ timestamp: ts(m, s), value: 20 + Math.sin(m + s / 60) * 5 + (s % 3) / 7, ...(s === 0 ? { tags: { phase: `m${m}` } } : {}) });
      counters.push({ timestamp: ts(m, s), value: m * 60 + s });
    }
  }
  await write(`/svc/metrics/gauges/${temp}/raw`, gauges);
  await write(`/svc/metrics/counters/${runs}/raw`, counters);
  await write(`/svc/metrics/availability/${door}/raw`, [{ timestamp: ts(from, 1), value: from % 2 ? "down" : "up" }, { timestamp: ts(from, 31), value: "up" }]);
  await write(`/svc/metrics/strings/${state}/raw`, [{ timestamp: ts(from, 2), value: `state ${from}` }]);
  // The first value of this minute written again: the later write wins, here as at the collector.
  await write(`/svc/metrics/gauges/${temp}/raw`, [{ timestamp: ts(from, 0), value: -1 }]);
}

beforeAll(async () => {
  await sys.start();
});

afterAll(async () => {
  await sys.stop();
});

describe("the agent's local history", () => {
  beforeEach(() => onTestFailed(() => console.error(sys.logs())));

  test("reads of the local window match the collector's after the backlog drained", async () => {
    // Acknowledged before the outage: kept in the window.
    await writeMinutes(0, 15);
    await waitFor("the window to hold them", async () => ((await agentMetric("outpost_agent_history_points")) ?? 0) > 2 * 15 * 12 ? true : undefined);

    await sys.mosquitto!.kill("SIGKILL");
    await waitFor("the agent to notice", async () => ((await agentMetric("outpost_agent_broker_connected")) === 0 ? true : undefined));
    // The backlog: only on the agent for now.
    await writeMinutes(15, 30);
    const end = T0 + 30 * 60_000;
    const range = `start=${T0}&end=${end}`;
    const mixed = { method: "POST", body: JSON.stringify({ metrics: { gauge: [temp], counter: [runs], availability: [door] }, start: T0, end, buckets: 10, percentiles: "95" }) };
    const local = {
      mixed: await json(await agent("/svc/metrics/metrics/stats/query", mixed)),
      raw: await json(await agent(`/svc/metrics/gauges/${temp}/raw?${range}`)),
      desc: await json(await agent(`/svc/metrics/gauges/${temp}/raw?${range}&order=DESC&limit=50`)),
      counter: await json(await agent(`/svc/metrics/counters/${runs}/raw?${range}`)),
      rate: await json(await agent(`/svc/metrics/counters/${runs}/rate?${range}`)),
      door: await json(await agent(`/svc/metrics/availability/${door}/raw?${range}&distinct=true`)),
      state: await json(await agent(`/svc/metrics/strings/${state}/raw?${range}`)),
      stats: await json(await agent(`/svc/metrics/gauges/${temp}/stats?${range}&buckets=60&percentiles=50,90`)),
      doorStats: await json(await agent(`/svc/metrics/availability/${door}/stats?${range}&buckets=6`)),
      promql: await json(await agent(`/api/v1/query_range?query=${encodeURIComponent(`max_over_time({__name__="${temp}"}[2m])`)}&start=${(T0 + 60_000) / 1000}&end=${end / 1000}&step=60`)),
    };
    expect(local.raw).toHaveLength(30 * 12);
    // Newest first, as the collector answers a read with both bounds.
    const points = local.raw as { timestamp: number; value: number; tags?: Record<string, string> }[];
    expect(points.at(-1)).toEqual({ timestamp: T0, value: -1 });
    expect(points.at(-13)).toMatchObject({ timestamp: T0 + 60_000, tags: { phase: "m1" } });
    expect(local.stats).toHaveLength(60);
    expect((local.promql as { data: { result: unknown[] } }).data.result).toHaveLength(1);
    // Nothing of the last quarter hour has reached the collector.
    expect(await json(await collector(`/svc/metrics/gauges/${temp}/raw?start=${T0 + 15 * 60_000}&end=${end}`))).toBeNull();

    await sys.startMosquitto();
    await waitFor("the backlog drained", async () => ((await agentMetric("outpost_agent_buffer_points")) === 0 ? true : undefined), 60_000, 200);
    const remote = {
      mixed: await json(await collector("/svc/metrics/metrics/stats/query", mixed)),
      raw: await json(await collector(`/svc/metrics/gauges/${temp}/raw?${range}`)),
      desc: await json(await collector(`/svc/metrics/gauges/${temp}/raw?${range}&order=DESC&limit=50`)),
      counter: await json(await collector(`/svc/metrics/counters/${runs}/raw?${range}`)),
      rate: await json(await collector(`/svc/metrics/counters/${runs}/rate?${range}`)),
      door: await json(await collector(`/svc/metrics/availability/${door}/raw?${range}&distinct=true`)),
      state: await json(await collector(`/svc/metrics/strings/${state}/raw?${range}`)),
      stats: await json(await collector(`/svc/metrics/gauges/${temp}/stats?${range}&buckets=60&percentiles=50,90`)),
      doorStats: await json(await collector(`/svc/metrics/availability/${door}/stats?${range}&buckets=6`)),
      promql: await json(
        await collector(`/prometheus/${TENANT}/api/v1/query_range?query=${encodeURIComponent(`max_over_time({__name__="${temp}"}[2m])`)}&start=${(T0 + 60_000) / 1000}&end=${end / 1000}&step=60`),
      ),
    };
    expect(local).toEqual(remote);

    // After the drain the agent still answers the whole range, now all from its window.
    expect(await json(await agent(`/svc/metrics/gauges/${temp}/stats?${range}&buckets=60&percentiles=50,90`))).toEqual(remote.stats);
  }, 120_000);

  test("the local API is read-only for the agent's tenant, behind its token", async () => {
    expect((await fetch(`${sys.agentUrl}/svc/metrics/gauges/${temp}/raw`)).status).toBe(401);
    expect((await fetch(`${sys.agentUrl}/api/v1/query?query=up`)).status).toBe(401);
    expect((await agent(`/svc/metrics/gauges/${temp}/raw`, { headers: { "Svc-Tenant": "someone-else" } })).status).toBe(403);
    expect((await agent(`/prometheus/someone-else/api/v1/query?query=up`)).status).toBe(403);
    expect((await agent(`/svc/metrics/gauges/${temp}`, { method: "DELETE" })).status).toBe(404);
    expect((await agent(`/api/v1/write`, { method: "POST", body: "x" })).status).toBe(404);
    // Definitions as the console lists them.
    const defs = (await json(await agent("/svc/metrics/metrics?type=gauge"))) as { id: string }[];
    expect(defs.map((d) => d.id)).toContain(temp);
  });
});
