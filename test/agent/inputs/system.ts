/**
 * A collector (embedded broker on an ephemeral port) and an agent with inputs, both in this
 * process, for the inputs' end-to-end tests; series read back through the collector's
 * Prometheus and Hawkular APIs.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Agent, startAgent } from "../../../agent/agent.ts";
import { body, startTestCollector, type TestCollector } from "../../helpers/collector.ts";
import { freePort, waitFor } from "../../helpers/ports.ts";

export interface InputsSystem {
  col: TestCollector;
  agent: Agent;
  tenant: string;
  feed: string;
  /** PromQL instant query at `time` (ms; default now) in the agent's tenant: the result vector. */
  query(q: string, time?: number): Promise<{ metric: Record<string, string>; value: [number, string] }[]>;
  /** Waits until `q` returns at least `n` series (default 1). */
  until(q: string, n?: number, timeoutMs?: number): Promise<{ metric: Record<string, string>; value: [number, string] }[]>;
  close(): Promise<void>;
}

export async function startInputsSystem(agentValues: Record<string, unknown>, o: { mqttPort?: number; collector?: TestCollector } = {}): Promise<InputsSystem> {
  const mqttPort = o.mqttPort ?? (await freePort());
  const col = o.collector ?? (await startTestCollector({ "mqtt-port": mqttPort, "mqtt-host": "127.0.0.1" }));
  const dir = mkdtempSync(join(tmpdir(), "outpost-inputs-"));
  const tenant = "acme";
  const feed = "edge-1";
  const agent = await startAgent({
    broker: `mqtt://127.0.0.1:${mqttPort}`,
    tenant,
    feed,
    "data-dir": dir,
    listen: "127.0.0.1:0",
    "log-level": "warn",
    interval: 60_000,
    "reconnect-min": 100,
    "reconnect-max": 500,
    "host-metrics": false,
    inventory: false,
    ...agentValues,
  } as never);
  const query = async (q: string, time = Date.now()) => {
    const res = await col.req(`/prometheus/${tenant}/api/v1/query?${new URLSearchParams({ query: q, time: String(time / 1000) })}`, { tenant: null });
    const b = await body(res);
    if (b.status !== "success") throw new Error(`${q}: ${JSON.stringify(b)}`);
    return b.data.result;
  };
  return {
    col,
    agent,
    tenant,
    feed,
    query,
    until: (q, n = 1, timeoutMs = 20_000) =>
      waitFor(
        `${n} series of ${q}`,
        async () => {
          const r = await query(q);
          return r.length >= n ? r : undefined;
        },
        timeoutMs,
        100,
      ),
    async close() {
      await agent.stop();
      if (!o.collector) await col.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
