/**
 * The example triggers of docs/operations.md, taken from the document itself: the alerts API
 * accepts each, and each fires on the data it watches (written as the collector and agents
 * store their own metrics).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestCollector, type TestCollector } from "../helpers/collector.ts";
import { waitFor } from "../helpers/ports.ts";

const DOC = readFileSync(join(import.meta.dirname, "../../docs/operations.md"), "utf8");

interface Example {
  tenant: string;
  body: { trigger: { id: string } };
}

const examples: Example[] = [...DOC.matchAll(/<!-- trigger tenant=(\S+) -->\n```json\n([\s\S]*?)\n```/g)].map((m) => ({ tenant: m[1]!, body: JSON.parse(m[2]!) }));
const example = (id: string) => examples.find((e) => e.body.trigger.id === id)!;

let col: TestCollector;
beforeAll(async () => {
  col = await startTestCollector();
});
afterAll(() => col.close());

async function write(tenant: string, type: "gauges" | "availability", id: string, points: { timestamp: number; value: number | string }[]): Promise<void> {
  const r = await col.req(`/svc/metrics/${type}/raw`, { method: "POST", tenant, json: [{ id, dataPoints: points }] });
  expect(r.status).toBe(200);
}

async function alerts(tenant: string, triggerId: string, statuses = "OPEN"): Promise<unknown[]> {
  const r = await col.req(`/svc/alerts?triggerIds=${triggerId}&statuses=${statuses}`, { tenant });
  return r.status === 200 ? ((await r.json()) as unknown[]) : [];
}

describe("the example triggers of docs/operations.md", () => {
  it("are three, and the alerts API accepts each as it is written", async () => {
    expect(examples.map((e) => e.body.trigger.id)).toEqual(["agent-down-edge-1", "buffer-filling-edge-1", "collector-disk-filling"]);
    for (const e of examples) {
      const r = await col.req("/svc/alerts/triggers/trigger", { method: "POST", tenant: e.tenant, json: e.body });
      expect(r.status, await r.clone().text()).toBe(200);
    }
  });

  it("agent down fires on the feed's presence going down and resolves itself when it is back", async () => {
    const { tenant } = example("agent-down-edge-1");
    const t = Date.now();
    await write(tenant, "availability", "edge-1:outpost_agent_up", [{ timestamp: t, value: "down" }]);
    await waitFor("the alert", async () => ((await alerts(tenant, "agent-down-edge-1")).length === 1 ? true : undefined));
    await write(tenant, "availability", "edge-1:outpost_agent_up", [{ timestamp: t + 5000, value: "up" }]);
    await waitFor("the alert resolved", async () => ((await alerts(tenant, "agent-down-edge-1", "RESOLVED")).length === 1 ? true : undefined));
  });

  it("buffer filling fires after three reports of more than 128 MB, not after one", async () => {
    const { tenant } = example("buffer-filling-edge-1");
    const t = Date.now();
    await write(tenant, "gauges", "edge-1:outpost_agent_buffer_bytes", [{ timestamp: t, value: 200e6 }, { timestamp: t + 10_000, value: 1e6 }]);
    await Bun.sleep(300);
    expect(await alerts(tenant, "buffer-filling-edge-1")).toHaveLength(0);
    await write(tenant, "gauges", "edge-1:outpost_agent_buffer_bytes", [{ timestamp: t + 20_000, value: 210e6 }, { timestamp: t + 30_000, value: 220e6 }]);
    await waitFor("the alert", async () => ((await alerts(tenant, "buffer-filling-edge-1")).length === 1 ? true : undefined));
  });

  it("collector disk filling compares free space with 10 % of the filesystem", async () => {
    const { tenant } = example("collector-disk-filling");
    const t = Date.now();
    const disk = (free: number, at: number) =>
      col.req("/svc/metrics/gauges/raw", {
        method: "POST",
        tenant,
        json: [
          { id: "collector:outpost_collector_disk_size_bytes", dataPoints: [{ timestamp: at, value: 100e9 }] },
          { id: "collector:outpost_collector_disk_free_bytes", dataPoints: [{ timestamp: at, value: free }] },
        ],
      });
    expect((await disk(40e9, t)).status).toBe(200);
    await Bun.sleep(300);
    expect(await alerts(tenant, "collector-disk-filling")).toHaveLength(0);
    expect((await disk(9e9, t + 10_000)).status).toBe(200);
    await waitFor("the alert", async () => ((await alerts(tenant, "collector-disk-filling")).length === 1 ? true : undefined));
  });
});
