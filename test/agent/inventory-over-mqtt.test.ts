import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import mqtt from "mqtt";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type Agent, startAgent } from "../../agent/agent.ts";
import { createDecoder } from "../../src/protocol/cbor.ts";
import { decodeInventory } from "../../src/protocol/inventory-messages.ts";
import { body, startTestCollector, type TestCollector } from "../helpers/collector.ts";
import { type PrivateMosquitto, startMosquitto } from "../helpers/mosquitto.ts";
import { waitFor } from "../helpers/ports.ts";
import { VM_T0 } from "./host/fixtures.ts";

const dirs: string[] = [];
const temp = (prefix: string) => {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
};

let col: TestCollector;
let agent: Agent;
let proc: string;
const seen: string[] = [];
let watcher: mqtt.MqttClient;

const traversal = async (path: string) => {
  const res = await col.req(`/svc/inventory/traversal/${path}`, { tenant: TENANT });
  return res.status === 200 ? ((await body(res)) as { id: string; properties?: Record<string, unknown> }[]) : [];
};

// A private Mosquitto, so that a test client may watch the inventory topic.
let mosquitto: PrivateMosquitto;
let BROKER: string;
const TENANT = `inv-${crypto.randomUUID()}`;

beforeAll(async () => {
  mosquitto = await startMosquitto();
  BROKER = mosquitto.url;
  col = await startTestCollector({ "mqtt-port": 0, broker: BROKER });
  // A copy of captured /proc, so the test can change what the host looks like.
  proc = temp("outpost-proc-");
  cpSync(VM_T0, proc, { recursive: true });
  watcher = await mqtt.connectAsync(BROKER);
  await watcher.subscribeAsync(`svc/${TENANT}/edge-1/inventory`, { qos: 1 });
  const dec = createDecoder();
  watcher.on("message", (_t, payload) => seen.push(decodeInventory(dec, payload).digest));
  agent = await startAgent({
    broker: BROKER,
    tenant: TENANT,
    feed: "edge-1",
    "data-dir": temp("outpost-agent-"),
    listen: "127.0.0.1:0",
    "log-level": "warn",
    interval: 200,
    "host-interval": 100,
    "proc-root": proc,
    "sys-root": join(proc, "no-sysfs"),
  });
});

afterAll(async () => {
  await agent.stop();
  await watcher.endAsync();
  await col.close();
  await mosquitto.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("the agent's inventory reaches the collector", () => {
  test("the host, its resources and metrics appear under the feed; metric definitions carry the tags", async () => {
    const resources = await waitFor("host resources", async () => {
      const r = await traversal("f;edge-1/r;host/type=r");
      return r.length > 0 ? r : undefined;
    });
    expect(resources.map((r) => r.id).sort()).toEqual([
      "cpu:cpu0",
      "cpu:cpu1",
      "disk:vda",
      "filesystem:/",
      // The inputs on by default: OTLP and Influx on the local API (docs/inputs.md).
      "input:influx",
      "input:otlp",
      "interface:eth0",
      "interface:ifb0",
      "interface:ifb1",
    ]);
    const host = await traversal("f;edge-1/type=r;id=host");
    expect(host[0]?.properties).toMatchObject({ hostname: "vm", cpus: 2 });
    const fsMetrics = await traversal(`f;edge-1/r;host/r;${encodeURIComponent("filesystem:/")}/type=m`);
    expect(fsMetrics.map((m) => m.id)).toContain("edge-1:filesystem_used_percent:root");

    const def = await body(await col.req(`/svc/metrics/gauges/${encodeURIComponent("edge-1:filesystem_used_percent:root")}`, { tenant: TENANT }));
    expect(def.tags).toEqual({ feed: "edge-1", metric: "filesystem_used_percent", mountpoint: "/" });
    const counters = await body(await col.req("/svc/metrics/counters?tags=metric:cpu_time_ms_total,cpu:cpu1", { tenant: TENANT }));
    expect(counters.map((c: { id: string }) => c.id).sort()).toHaveLength(10);
  });

  test("host points arrive, and an unchanged inventory is not sent again", async () => {
    // Wait for several samples after the first sync.
    await waitFor("five samples stored", async () => {
      const res = await col.req(`/svc/metrics/gauges/${encodeURIComponent("edge-1:memory_total_bytes")}/raw?start=0`, { tenant: TENANT });
      return res.status === 200 && ((await res.json()) as unknown[]).length >= 5 ? true : undefined;
    });
    expect(seen).toHaveLength(1);
  });

  test("a change (an interface disappears) is synced, and the collector drops what went away", async () => {
    const netDev = join(proc, "net/dev");
    writeFileSync(netDev, readFileSync(netDev, "utf8").replace(/^.*ifb1:.*\n/m, ""));
    await waitFor("ifb1 removed from the inventory", async () => {
      const r = await traversal("f;edge-1/r;host/type=r");
      return r.length > 0 && !r.some((x) => x.id === "interface:ifb1") ? true : undefined;
    });
    expect(seen).toHaveLength(2);
    expect(seen[1]).not.toBe(seen[0]);
  });
});
