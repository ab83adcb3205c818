import mqtt from "mqtt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MetricWrite } from "../../src/metrics/model.ts";
import { createEncoder } from "../../src/protocol/cbor.ts";
import { encodeChunk, encodeData, encodeStatus } from "../../src/protocol/messages.ts";
import { buildTopic } from "../../src/protocol/topics.ts";
import { startTestCollector, type TestCollector } from "../helpers/collector.ts";
import { freePort } from "../helpers/ports.ts";
import { type AlertsClient, alertsClient, eventually, thresholdTrigger } from "./helpers.ts";

const enc = createEncoder();
let col: TestCollector;
let api: AlertsClient;
let port: number;

beforeAll(async () => {
  port = await freePort();
  col = await startTestCollector({ "mqtt-port": port, "mqtt-host": "127.0.0.1" });
  api = alertsClient(col);
});
afterAll(async () => {
  await col.close();
});

const topic = (feed: string, kind: "data" | "status") => buildTopic("svc", { tenant: "t1", feed, kind });

describe("points arriving from agents over MQTT feed the engine", () => {
  it("a gauge point in an agent's batch fires a trigger on the metric id", async () => {
    await api.ok("POST", "/triggers/trigger", thresholdTrigger("mqtt-temp", "edge1.temperature", 70, { severity: "HIGH" }));
    const c = await mqtt.connectAsync(`mqtt://127.0.0.1:${port}`, { protocolVersion: 4, reconnectPeriod: 0 });
    try {
      const writes: MetricWrite[] = [{ type: "gauge", id: "edge1.temperature", points: [{ timestamp: Date.now(), value: 81 }] }];
      const payload = encodeData(enc, { session: 1, seq: 1, sentAt: Date.now(), replay: false, chunks: [encodeChunk(enc, writes)] });
      await c.publishAsync(topic("edge1", "data"), Buffer.from(payload), { qos: 1 });
      const alerts = await eventually(() => api.ok("GET", "/?triggerIds=mqtt-temp"), (a) => a.length === 1, "an alert from an MQTT point");
      expect(alerts[0].evalSets[0][0]).toMatchObject({ value: 81, condition: { dataId: "edge1.temperature" } });
    } finally {
      await c.endAsync();
    }
  });

  it("an agent going offline fires an availability trigger on its presence metric", async () => {
    await api.ok("POST", "/triggers/trigger", {
      trigger: { id: "agent-down", name: "agent edge2 down", enabled: true },
      conditions: [{ type: "AVAILABILITY", dataId: "edge2:outpost_agent_up", operator: "DOWN" }],
    });
    const c = await mqtt.connectAsync(`mqtt://127.0.0.1:${port}`, { protocolVersion: 4, reconnectPeriod: 0 });
    try {
      await c.publishAsync(topic("edge2", "status"), Buffer.from(encodeStatus(enc, { state: "online", session: 7, at: Date.now() })), { qos: 1 });
      await c.publishAsync(topic("edge2", "status"), Buffer.from(encodeStatus(enc, { state: "offline", session: 7, at: Date.now() })), { qos: 1 });
      const alerts = await eventually(() => api.ok("GET", "/?triggerIds=agent-down"), (a) => a.length === 1, "an agent-down alert");
      expect(alerts[0].evalSets[0][0]).toMatchObject({ type: "AVAILABILITY", value: "DOWN" });
    } finally {
      await c.endAsync();
    }
  });
});
