/**
 * What the programs tell an operator: where the collector really listens, an agent that cannot
 * connect (URL and reason) or that is connected but gets no acknowledgement, and logs as JSON.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startMosquitto } from "../helpers/mosquitto.ts";
import { freePort } from "../helpers/ports.ts";
import { portOf, Running } from "../helpers/program.ts";

const dir = mkdtempSync(join(tmpdir(), "outpost-logs-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const agentArgs = (name: string, broker: string, ...more: string[]) => [
  "--tenant", "acme", "--feed", name, "--data-dir", join(dir, name), "--broker", broker, "--listen", "",
  "--host-interval", "200ms", "--ack-timeout", "500ms", "--reconnect-min", "100ms", "--reconnect-max", "200ms", ...more,
];

describe("collector", () => {
  it("logs the addresses it really listens on, the ports the system chose included", async () => {
    const c = Running.start("collector", ["--data-dir", join(dir, "c1"), "--http-host", "127.0.0.1", "--http-port", "0", "--mqtt-host", "127.0.0.1", "--mqtt-port", String(await freePort())]);
    try {
      const http = await c.waitForLine(/HTTP listening/);
      expect(http).toMatch(/HTTP listening address=127\.0\.0\.1:\d+ url=http:\/\/127\.0\.0\.1:\d+$/);
      expect(portOf(http)).toBeGreaterThan(0);
      await c.waitForLine(/collector ready/);
      expect((await fetch(`http://127.0.0.1:${portOf(http)}/health`)).status).toBe(200);
      const mqtt = await c.waitForLine(/MQTT broker listening/);
      expect(mqtt).toMatch(/MQTT broker listening address=127\.0\.0\.1:\d+ url=mqtt:\/\/127\.0\.0\.1:\d+$/);
    } finally {
      await c.stop("SIGTERM");
    }
  });

  it("writes JSON lines with --log-format json", async () => {
    const c = Running.start("collector", ["--data-dir", join(dir, "c2"), "--http-host", "127.0.0.1", "--http-port", "0", "--mqtt-port", "0", "--log-format", "json"]);
    await c.waitForLine(/collector ready/);
    c.signal("SIGTERM");
    expect(await c.exited).toBe(0);
    const records = c.lines.filter((l) => l !== "").map((l) => JSON.parse(l));
    expect(records.length).toBeGreaterThan(4);
    for (const r of records) expect(r).toMatchObject({ time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), level: expect.stringMatching(/^(debug|info|warn|error)$/), msg: expect.any(String) });
    expect(records).toContainEqual(expect.objectContaining({ level: "info", component: "collector", msg: "HTTP listening", address: expect.stringMatching(/^127\.0\.0\.1:\d+$/) }));
  });
});

describe("agent", () => {
  it("says when it cannot connect: the broker's URL and the reason", async () => {
    const closed = await freePort();
    const a = Running.start("agent", agentArgs("nowhere", `mqtt://127.0.0.1:${closed}`));
    try {
      const line = await a.waitForLine(/cannot connect to the broker/);
      expect(line).toMatch(new RegExp(`WARN  \\[agent\\.link\\] cannot connect to the broker url=mqtt://127\\.0\\.0\\.1:${closed} reason=\\S`));
    } finally {
      await a.stop("SIGTERM");
    }
  });

  it("warns when connected but nothing is acknowledged (a broker no collector reads), and says when acks come back", async () => {
    const mosquitto = await startMosquitto();
    const a = Running.start("agent", agentArgs("lonely", mosquitto.url, "--ack-warn-after", "1s", "--log-format", "json"));
    let c: Running | undefined;
    try {
      await a.waitForLine(/connected to broker/);
      const warn = JSON.parse(await a.waitForLine(/acknowledged nothing/));
      expect(warn).toMatchObject({
        level: "warn",
        component: "agent.link",
        msg: "connected to the broker, but the collector has acknowledged nothing: is a collector consuming this broker, with the same topic prefix?",
        url: mosquitto.url,
        topicPrefix: "svc",
      });
      expect(warn.waitingSeconds).toBeGreaterThanOrEqual(1);
      // It repeats while it lasts...
      const from = a.lines.length;
      await a.waitForLine(/acknowledged nothing/, 10_000, from);
      // ...and ends when a collector consumes the broker.
      c = Running.start("collector", ["--data-dir", join(dir, "c3"), "--http-host", "127.0.0.1", "--http-port", "0", "--mqtt-port", "0", "--broker", mosquitto.url]);
      await a.waitForLine(/the collector acknowledges again/, 20_000);
    } finally {
      await a.stop("SIGTERM");
      await c?.stop("SIGTERM");
      await mosquitto.stop();
    }
  });
});
