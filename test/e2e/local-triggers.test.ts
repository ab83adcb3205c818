/**
 * Whole system: collector, agent and a private Mosquitto as separate processes. A trigger
 * pushed to the agent fires while the broker is down; its alert reaches the collector after
 * the broker is back, with its evaluations, exactly once.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Alert } from "../../src/alerts/model.ts";
import { waitFor } from "../helpers/ports.ts";
import { System } from "./harness.ts";

const TENANT = "e2e-triggers";
const FEED = "edge-e2e";
const sys = new System({ broker: "mosquitto", tenant: TENANT, feed: FEED });

const collector = (path: string, init: RequestInit = {}) =>
  fetch(`${sys.collectorUrl}${path}`, { ...init, headers: { "Content-Type": "application/json", "Svc-Tenant": TENANT, ...init.headers } });
const alertsOf = async (triggerId: string): Promise<Alert[]> => {
  const res = await collector(`/svc/alerts?triggerIds=${triggerId}`);
  return res.status === 200 ? ((await res.json()) as Alert[]) : [];
};
const agentMetric = async (name: string): Promise<number | undefined> => {
  const res = await fetch(`${sys.agentUrl}/metrics`).catch(() => undefined);
  const m = res && new RegExp(`^${name} (\\S+)$`, "m").exec(await res.text());
  return m ? Number(m[1]) : undefined;
};

beforeAll(async () => {
  await sys.start();
});

afterAll(async () => {
  await sys.stop();
});

describe("local triggers across a broker outage", () => {
  test("fires while the broker is down; the alert reaches the collector after reconnect, once", async () => {
    const trigger = {
      trigger: { id: "overheat", name: "overheat", enabled: true, source: FEED, severity: "HIGH" },
      conditions: [{ type: "THRESHOLD", dataId: `${FEED}:temperature`, operator: "GT", threshold: 70 }],
    };
    expect((await collector("/svc/alerts/triggers/trigger", { method: "POST", body: JSON.stringify(trigger) })).status).toBe(200);
    await waitFor("the trigger on the agent", async () => ((await agentMetric("outpost_agent_local_triggers")) === 1 ? true : undefined));

    await sys.mosquitto!.kill("SIGKILL");
    await waitFor("the agent to notice", async () => ((await agentMetric("outpost_agent_broker_connected")) === 0 ? true : undefined));
    const at = Date.now();
    const res = await fetch(`${sys.agentUrl}/svc/metrics/gauges/raw`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify([{ id: `${FEED}:temperature`, dataPoints: [{ timestamp: at, value: 85 }] }]),
    });
    expect(res.status).toBe(200);
    await waitFor("the alert buffered on the agent", async () => ((await agentMetric("outpost_agent_events_buffered")) === 1 ? true : undefined));
    expect(await agentMetric("outpost_agent_events_fired_total")).toBe(1);
    expect(await alertsOf("overheat")).toEqual([]);

    await sys.startMosquitto();
    const [alert] = await waitFor(
      "the alert at the collector",
      async () => {
        const a = await alertsOf("overheat");
        return a.length > 0 ? a : undefined;
      },
      60_000,
    );
    expect(alert).toMatchObject({ tenantId: TENANT, severity: "HIGH", status: "OPEN", dataSource: FEED, trigger: { id: "overheat" } });
    expect(alert?.evalSets?.[0]?.[0]).toMatchObject({ type: "THRESHOLD", value: 85, dataTimestamp: at, condition: { dataId: `${FEED}:temperature` } });
    await waitFor("the agent's events buffer emptied", async () => ((await agentMetric("outpost_agent_events_buffered")) === 0 ? true : undefined));

    // The point itself reached the collector as well; the collector's engine did not fire the trigger again.
    await waitFor("the point at the collector", async () => {
      const r = await collector(`/svc/metrics/gauges/${encodeURIComponent(`${FEED}:temperature`)}/raw?start=${at}&end=${at + 1}`);
      return r.status === 200 ? true : undefined;
    });
    // Give a wrongly fired second alert time to be stored before looking.
    await Bun.sleep(500);
    expect((await alertsOf("overheat")).map((a) => a.id)).toEqual([alert?.id]);
  });
});
