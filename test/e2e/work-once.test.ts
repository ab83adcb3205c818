import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Agent, startAgent } from "../../agent/agent.ts";
import { partitionOf } from "../../src/partitions.ts";
import { waitFor } from "../helpers/ports.ts";
import { DatabaseCluster, tenantRequest } from "./database-cluster.ts";

/**
 * Two collector processes on one PostgreSQL database and one Mosquitto, with separate data
 * folders. The collector holding the lease of the agent's tenant is killed (SIGKILL: no lease
 * released); the other takes the tenant over within 15 s, and the data the agent sent across the
 * takeover fires its trigger exactly once.
 */
const cluster = new DatabaseCluster("work-once");
const agents: Agent[] = [];
beforeAll(() => cluster.setUp({ broker: true }));
afterAll(async () => {
  for (const a of agents) await a.stop();
  await cluster.tearDown();
});

const startCollector = () => cluster.startCollector();
const req = tenantRequest("t1");
const leaseOwners = () => cluster.leaseOwners();

describe("work done once, across a collector's death", () => {
  it("SIGKILL of the tenant's owner: the other collector takes over within 15 s and the trigger fires exactly once", async () => {
    const first = await startCollector();
    const trigger = {
      trigger: { id: "hot", name: "hot", enabled: true, autoDisable: true },
      conditions: [{ type: "THRESHOLD", dataId: "temp", operator: "GT", threshold: 10 }],
    };
    expect((await req(first.url, "/svc/alerts/triggers/trigger", { method: "POST", json: trigger })).status).toBe(200);
    const second = await startCollector();
    // The 16 partitions spread over both collectors.
    await waitFor(
      "the partitions shared",
      async () => {
        const owners = new Set((await leaseOwners()).values());
        return owners.size === 2 ? true : undefined;
      },
      15_000,
    );
    const partition = partitionOf("t1", 16);
    const owner = (await leaseOwners()).get(partition);
    expect(owner).toBeDefined();
    const ownerPid = Number(owner?.split(":")[1]);
    const [victim, survivor] = ownerPid === first.p.pid ? [first, second] : [second, first];
    expect(victim.p.pid).toBe(ownerPid);

    const agent = await startAgent({
      broker: cluster.mosquitto!.url,
      tenant: "t1",
      feed: "edge-1",
      "data-dir": cluster.folder(),
      listen: "127.0.0.1:0",
      "log-level": "warn",
      interval: 60_000,
      "reconnect-max": 1000,
      "host-metrics": false,
    });
    agents.push(agent);
    const from = Date.now() - 3_600_000;
    const push = async (i: number, value: number) => {
      const res = await fetch(`${agent.url}/svc/metrics/gauges/raw`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify([{ id: "temp", dataPoints: [{ timestamp: from + i * 5000, value }] }]),
      });
      expect(res.status).toBe(200);
      await Bun.sleep(30);
    };
    for (let i = 0; i < 5; i++) await push(i, 5); // below the threshold, before the death

    victim.p.signal("SIGKILL");
    const killedAt = performance.now();
    // Above it, right after: stored by the survivor while nobody holds the tenant's lease.
    for (let i = 5; i < 15; i++) await push(i, 20);
    const survivorPid = String(survivor.p.pid);
    await waitFor("the takeover", async () => ((await leaseOwners()).get(partition)?.split(":")[1] === survivorPid ? true : undefined), 20_000, 100);
    const takeoverMs = performance.now() - killedAt;
    console.log(`takeover after ${Math.round(takeoverMs)} ms`);
    expect(takeoverMs).toBeLessThan(15_000);

    const alerts = await waitFor("the alert", async () => {
      const list = (await (await req(survivor.url, "/svc/alerts?triggerIds=hot")).json()) as { id: string }[];
      return list.length > 0 ? list : undefined;
    });
    await Bun.sleep(1500); // a second firing would show by now
    expect(alerts).toHaveLength(1);
    expect((await (await req(survivor.url, "/svc/alerts?triggerIds=hot")).json()) as unknown[]).toHaveLength(1);
    // The survivor holds every partition now.
    await waitFor("all partitions", async () => ((await leaseOwners()).size === 16 && new Set((await leaseOwners()).values()).size === 1 ? true : undefined), 15_000);
  }, 90_000);
});
