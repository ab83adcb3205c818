import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Agent, startAgent } from "../../agent/agent.ts";
import { agentOptions } from "../../agent/config.ts";

let agent: Agent;
let dir: string;
const agentOpts = () => ({
  broker: "mqtt://127.0.0.1:1", // nothing listens: everything stays buffered
  // No host metrics: the tests count what they write.
  "host-metrics": false,
  tenant: "t1",
  feed: "edge-1",
  "data-dir": dir,
  listen: "127.0.0.1:0",
  "log-level": "silent",
  interval: 60_000,
});

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "outpost-agent-"));
  agent = await startAgent(agentOpts());
});
afterAll(async () => {
  await agent.stop();
  rmSync(dir, { recursive: true, force: true });
});

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${agent.url}${path}`, { method: "POST", body: typeof body === "string" ? body : JSON.stringify(body), headers: { "Content-Type": "application/json", ...headers } });

async function gaugeValue(name: string): Promise<number> {
  const text = await (await fetch(`${agent.url}/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith(`${name} `));
  return Number(line?.split(" ")[1]);
}

describe("agent local write API", () => {
  it("accepts every raw-write body of the metrics interface and buffers the points", async () => {
    const now = Date.now();
    const before = await gaugeValue("outpost_agent_buffer_points");
    const writes: [string, unknown][] = [
      ["/svc/metrics/gauges/raw", [{ id: "cpu", data: [{ timestamp: now, value: 1.5 }], dataPoints: [{ timestamp: now + 1, value: 2 }] }]],
      ["/svc/metrics/counters/raw", [{ id: "req", dataPoints: [{ timestamp: now, value: 7 }] }]],
      ["/svc/metrics/availability/raw", [{ id: "web", dataPoints: [{ timestamp: now, value: "UP" }] }]],
      ["/svc/metrics/strings/raw", [{ id: "log", dataPoints: [{ timestamp: now, value: "hello" }] }]],
      ["/hawkular/metrics/metrics/raw", { gauges: [{ id: "mem", dataPoints: [{ timestamp: now, value: 3 }] }], strings: [{ id: "log", dataPoints: [{ timestamp: now + 1, value: "x" }] }] }],
      ["/svc/metrics/gauges/disk%20free/raw", [{ timestamp: now, value: 9 }]],
    ];
    for (const [path, body] of writes) {
      const res = await post(path, body, { "Hawkular-Tenant": "t1" });
      expect(res.status, path).toBe(200);
    }
    expect(await gaugeValue("outpost_agent_buffer_points")).toBe(before + 8);
    expect(await gaugeValue("outpost_agent_points_accepted_total")).toBeGreaterThanOrEqual(8);
  });

  it("answers bad input with a 4xx and errorMsg, and buffers nothing", async () => {
    const before = await gaugeValue("outpost_agent_buffer_points");
    const cases: [string, unknown, number, Record<string, string>?][] = [
      ["/svc/metrics/gauges/raw", "{not json", 400],
      ["/svc/metrics/gauges/raw", "", 400],
      ["/svc/metrics/gauges/raw", [{ id: "cpu", dataPoints: [{ timestamp: 1, value: "abc" }] }], 400],
      ["/svc/metrics/availability/raw", [{ id: "web", dataPoints: [{ timestamp: 1, value: "sideways" }] }], 400],
      ["/svc/metrics/counters/raw", [{ id: "c", dataPoints: [{ timestamp: 1.5, value: 1 }] }], 400],
      // The limits of src/metrics/limits.ts, shared with the collector.
      ["/svc/metrics/gauges/raw", [{ id: "cpu", dataPoints: [{ timestamp: 1, value: " 5 " }] }], 400],
      ["/svc/metrics/gauges/raw", [{ id: "x".repeat(1025), dataPoints: [{ timestamp: 1, value: 5 }] }], 400],
      ["/svc/metrics/gauges/raw", [{ id: "cpu", dataPoints: [{ timestamp: 9e15, value: 5 }] }], 400],
      ["/svc/metrics/gauges/cpu/raw", [{ timestamp: 1, value: 5, tags: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`t${i}`, "v"])) }], 400],
      ["/svc/metrics/metrics/raw", {}, 400],
      ["/svc/metrics/gauges/raw", [{ id: "cpu", dataPoints: [{ timestamp: 1, value: 1 }] }], 403, { "Svc-Tenant": "someone-else" }],
      ["/svc/metrics/gauges/raw", "x", 415, { "Content-Type": "text/plain" }],
    ];
    for (const [path, body, status, headers] of cases) {
      const res = await post(path, body, headers);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(typeof ((await res.json()) as { errorMsg?: unknown }).errorMsg).toBe("string");
    }
    expect((await fetch(`${agent.url}/svc/metrics/gauges/raw`)).status).toBe(405);
    expect((await fetch(`${agent.url}/nowhere`)).status).toBe(404);
    expect(await gaugeValue("outpost_agent_buffer_points")).toBe(before);
  });

  it("flags timestamps far from the agent clock but keeps the points", async () => {
    const skewBefore = await gaugeValue("outpost_agent_points_clock_skew_total");
    const res = await post("/svc/metrics/gauges/raw", [{ id: "skewed", dataPoints: [{ timestamp: Date.now() + 3_600_000, value: 1 }, { timestamp: 0, value: 1 }, { timestamp: Date.now(), value: 1 }] }]);
    expect(res.status).toBe(200);
    expect(res.headers.get("Outpost-Flagged-Timestamps")).toBe("2");
    expect(await gaugeValue("outpost_agent_points_clock_skew_total")).toBe(skewBefore + 2);
  });

  it("serves its own metrics in the Prometheus text format", async () => {
    const res = await fetch(`${agent.url}/metrics`);
    expect(res.headers.get("content-type")).toContain("text/plain; version=0.0.4");
    const text = await res.text();
    for (const name of ["outpost_agent_buffer_points", "outpost_agent_buffer_bytes", "outpost_agent_buffer_oldest_age_seconds", "outpost_agent_points_dropped_size_total", "outpost_agent_batches_sent_total", "outpost_agent_batches_acked_total"]) {
      expect(text).toMatch(new RegExp(`^# TYPE ${name} (counter|gauge)$`, "m"));
    }
    expect(await gaugeValue("outpost_agent_broker_connected")).toBe(0);
  });

  it("keeps buffered points across a restart", async () => {
    const buffered = await gaugeValue("outpost_agent_buffer_points");
    expect(buffered).toBeGreaterThan(0);
    await agent.stop();
    agent = await startAgent(agentOpts());
    expect(await gaugeValue("outpost_agent_buffer_points")).toBe(buffered);
  });
});

describe("agent command line", () => {
  it("explains every option in --help", async () => {
    const p = Bun.spawn([process.execPath, "agent/main.ts", "--help"], { stdout: "pipe", stderr: "pipe" });
    const out = await new Response(p.stdout).text();
    expect(await p.exited).toBe(0);
    for (const o of agentOptions) expect(out).toContain(`--${o.name}`);
  });

  it("refuses to start without a tenant", async () => {
    const p = Bun.spawn([process.execPath, "agent/main.ts", "--listen", ""], { stdout: "pipe", stderr: "pipe" });
    expect(await p.exited).toBe(2);
    expect(await new Response(p.stderr).text()).toMatch(/--tenant is required/);
  });
});
