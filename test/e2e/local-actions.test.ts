/**
 * Whole system: collector, agent and a private Mosquitto as separate processes, a real command
 * (a shell script) and a real HTTP endpoint on the agent's host. A trigger pushed to the agent
 * fires while the broker is down: the agent runs the actions its configuration allows, once,
 * refuses the one it does not allow, and after reconnection the collector holds the alert, its
 * lifecycle and the history of its actions with the times they ran. An agent killed during an
 * action does not run it again after its restart.
 */
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, onTestFailed, test } from "vitest";
import type { Action, Alert } from "../../src/alerts/model.ts";
import { waitFor } from "../helpers/ports.ts";
import { System } from "./harness.ts";

const TENANT = "e2e-actions";
const FEED = "edge-actions";
const sys = new System({ broker: "mosquitto", tenant: TENANT, feed: FEED, agentEnv: { CANARY_SECRET: "must-not-leak" } });

const siren = join(sys.dir, "siren.sh");
const slow = join(sys.dir, "slow.sh");
const sirenLog = join(sys.dir, "siren.log");
const slowLog = join(sys.dir, "slow.log");
const hits: { path: string; body: Alert }[] = [];
let plc: ReturnType<typeof Bun.serve>;

const collector = (path: string, init: RequestInit = {}) =>
  fetch(`${sys.collectorUrl}${path}`, { ...init, headers: { "Content-Type": "application/json", "Svc-Tenant": TENANT, ...init.headers } });
const post = async (path: string, body: unknown) => {
  const r = await collector(path, { method: "POST", body: JSON.stringify(body) });
  expect(r.status, await r.clone().text()).toBe(200);
};
const alertsOf = async (triggerId: string): Promise<Alert[]> => {
  const res = await collector(`/svc/alerts?triggerIds=${triggerId}`);
  return res.status === 200 ? ((await res.json()) as Alert[]) : [];
};
const historyOf = async (eventId: string): Promise<Action[]> => {
  const res = await collector(`/svc/alerts/actions/history?eventIds=${encodeURIComponent(eventId)}`);
  return res.status === 200 ? ((await res.json()) as Action[]) : [];
};
const agentMetric = async (name: string): Promise<number | undefined> => {
  const res = await fetch(`${sys.agentUrl}/metrics`).catch(() => undefined);
  const m = res && new RegExp(`^${name} (\\S+)$`, "m").exec(await res.text());
  return m ? Number(m[1]) : undefined;
};
const lines = (file: string) => {
  try {
    return readFileSync(file, "utf8").trim().split("\n").filter((l) => l !== "");
  } catch {
    return [];
  }
};
const write = async (metric: string, value: number) => {
  const res = await fetch(`${sys.agentUrl}/svc/metrics/gauges/raw`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify([{ id: `${FEED}:${metric}`, dataPoints: [{ timestamp: Date.now(), value }] }]),
  });
  expect(res.status).toBe(200);
};

beforeAll(async () => {
  plc = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: async (req) => {
      hits.push({ path: new URL(req.url).pathname, body: (await req.json()) as Alert });
      return new Response("ok");
    },
  });
  // The siren records its argument and what its environment tells of the alert (and that the agent's own environment stays out).
  writeFileSync(siren, `#!/bin/sh\necho "$1 $OUTPOST_STATUS $OUTPOST_TRIGGER_ID $OUTPOST_VALUE \${CANARY_SECRET:-clean}" >> ${sirenLog}\necho "siren $1"\n`);
  // The slow one writes a line, then waits long enough to be killed with the agent.
  writeFileSync(slow, `#!/bin/sh\necho "started $$" >> ${slowLog}\nsleep 30\n`);
  chmodSync(siren, 0o755);
  chmodSync(slow, 0o755);
  const conf = join(sys.dir, "agent.toml");
  writeFileSync(
    conf,
    [
      "[agent.actions]",
      "[[agent.actions.commands]]",
      `argv = ["${siren}"]`,
      "extra_args = true",
      "[[agent.actions.commands]]",
      `argv = ["${slow}"]`,
      "[[agent.actions.webhooks]]",
      `url = "http://127.0.0.1:${plc.port}/plc/"`,
      "",
    ].join("\n"),
  );
  sys.o.agentArgs = ["--config", conf];
  await sys.start();
});

afterAll(async () => {
  // The slow command outlives the agent killed during it: end it.
  for (const l of lines(slowLog)) {
    try {
      process.kill(-Number(l.split(" ")[1]), "SIGKILL");
    } catch {}
  }
  plc?.stop(true);
  await sys.stop();
});

describe("local actions across a broker outage", () => {
  beforeEach(() => onTestFailed(() => console.error(sys.logs())));

  test("run once while offline, the refused one reported, and the history reaches the collector after reconnect", async () => {
    await post("/svc/alerts/actions", { actionPlugin: "agent", actionId: "siren", properties: { run: "command", command: JSON.stringify([siren, "on"]), "command.RESOLVED": JSON.stringify([siren, "off"]) } });
    await post("/svc/alerts/actions", { actionPlugin: "agent", actionId: "plc", states: ["OPEN"], properties: { run: "webhook", url: `http://127.0.0.1:${plc.port}/plc/overheat` } });
    await post("/svc/alerts/actions", { actionPlugin: "agent", actionId: "wipe", properties: { run: "command", command: JSON.stringify(["/bin/rm", "-rf", join(sys.dir, "precious")]) } });
    writeFileSync(join(sys.dir, "precious"), "keep me");
    await post("/svc/alerts/triggers/trigger", {
      trigger: {
        id: "overheat",
        name: "overheat",
        enabled: true,
        source: FEED,
        severity: "HIGH",
        autoResolve: true,
        autoResolveAlerts: true,
        actions: [
          { actionPlugin: "agent", actionId: "siren" },
          { actionPlugin: "agent", actionId: "plc" },
          { actionPlugin: "agent", actionId: "wipe" },
        ],
      },
      conditions: [
        { type: "THRESHOLD", dataId: `${FEED}:temperature`, operator: "GT", threshold: 70 },
        { type: "THRESHOLD", triggerMode: "AUTORESOLVE", dataId: `${FEED}:temperature`, operator: "LT", threshold: 50 },
      ],
    });
    await waitFor("the trigger and its actions on the agent", async () => ((await agentMetric("outpost_agent_action_definitions")) === 3 ? true : undefined));

    await sys.mosquitto!.kill("SIGKILL");
    await waitFor("the agent to notice", async () => ((await agentMetric("outpost_agent_broker_connected")) === 0 ? true : undefined));
    const firedAt = Date.now();
    await write("temperature", 85);
    await waitFor("the siren and the PLC", () => (lines(sirenLog).length === 1 && hits.length === 1 ? true : undefined));
    await waitFor("the refusal", async () => ((await agentMetric("outpost_agent_actions_refused_total")) === 1 ? true : undefined));
    expect(lines(sirenLog)).toEqual(["on OPEN overheat 85 clean"]);
    expect(hits[0]).toMatchObject({ path: "/plc/overheat", body: { trigger: { id: "overheat" }, status: "OPEN", severity: "HIGH" } });
    expect(readFileSync(join(sys.dir, "precious"), "utf8")).toBe("keep me");

    // Resolved on the agent: the siren's RESOLVED variant runs; the PLC is for OPEN only.
    await Bun.sleep(1100); // the engine takes one value per second and data id
    await write("temperature", 40);
    await waitFor("the siren off", () => (lines(sirenLog).length === 2 ? true : undefined));
    await waitFor("the second refusal", async () => ((await agentMetric("outpost_agent_actions_refused_total")) === 2 ? true : undefined));
    const offlineUntil = Date.now();
    expect(await alertsOf("overheat")).toEqual([]);

    await sys.startMosquitto();
    const [alert] = await waitFor(
      "the resolved alert at the collector",
      async () => {
        const a = await alertsOf("overheat");
        return a.length === 1 && a[0]!.status === "RESOLVED" ? a : undefined;
      },
      60_000,
    );
    expect(alert!.lifecycle.map((l) => l.status)).toEqual(["OPEN", "RESOLVED"]);
    const history = await waitFor("the action history", async () => {
      const h = await historyOf(alert!.id);
      return h.length === 5 ? h : undefined;
    }, 30_000);
    const row = (actionId: string, status: string) => history.find((h) => h.actionId === actionId && (h.event as Alert | undefined)?.status === status);
    for (const [id, status, result] of [
      ["siren", "OPEN", "PROCESSED"],
      ["siren", "RESOLVED", "PROCESSED"],
      ["plc", "OPEN", "PROCESSED"],
      ["wipe", "OPEN", "FAILED"],
      ["wipe", "RESOLVED", "FAILED"],
    ] as const) {
      const h = row(id, status);
      expect(h, `${id} ${status}`).toMatchObject({ actionPlugin: "agent", result });
      // It ran while the agent was offline, and says when.
      expect(h!.ctime).toBeGreaterThanOrEqual(firedAt);
      expect(h!.ctime).toBeLessThanOrEqual(offlineUntil);
      expect(h!.endTime).toBeGreaterThanOrEqual(h!.ctime);
    }
    expect(row("siren", "OPEN")).toMatchObject({ resultMessage: `${siren} exited with 0`, output: "siren on\n" });
    expect(row("plc", "OPEN")?.resultMessage).toContain("answered 200");
    expect(row("wipe", "OPEN")?.resultMessage).toMatch(/^refused: command .* is not among the 2 commands \[agent\.actions\] allows/);

    // Nothing ran twice, and the collector ran none of them itself.
    await Bun.sleep(1000);
    expect(lines(sirenLog)).toEqual(["on OPEN overheat 85 clean", "off RESOLVED overheat 40 clean"]);
    expect(hits).toHaveLength(1);
    expect(await historyOf(alert!.id)).toHaveLength(5);
  }, 120_000);

  test("an agent killed during an action does not run it again after its restart", async () => {
    await post("/svc/alerts/actions", { actionPlugin: "agent", actionId: "slow", properties: { run: "command", command: JSON.stringify([slow]), timeout: "60000" } });
    await post("/svc/alerts/triggers/trigger", {
      trigger: { id: "flood", name: "flood", enabled: true, source: FEED, severity: "CRITICAL", actions: [{ actionPlugin: "agent", actionId: "slow" }] },
      conditions: [{ type: "THRESHOLD", dataId: `${FEED}:water`, operator: "GT", threshold: 1 }],
    });
    await waitFor("the flood trigger on the agent", async () => ((await agentMetric("outpost_agent_local_triggers")) === 2 ? true : undefined));
    await write("water", 5);
    await waitFor("the slow command started", () => (lines(slowLog).length === 1 ? true : undefined));
    await sys.agent.kill("SIGKILL");
    await sys.startAgent();

    const [alert] = await waitFor("the flood alert at the collector", async () => {
      const a = await alertsOf("flood");
      return a.length === 1 ? a : undefined;
    }, 60_000);
    const [h] = await waitFor("its action reported", async () => {
      const r = await historyOf(alert!.id);
      return r.length === 1 ? r : undefined;
    }, 30_000);
    expect(h).toMatchObject({ actionPlugin: "agent", actionId: "slow", result: "FAILED" });
    expect(h!.resultMessage).toMatch(/^interrupted: the agent stopped while it ran/);
    // Give a wrong second run every chance to happen.
    await Bun.sleep(2000);
    expect(lines(slowLog)).toHaveLength(1);
    expect(await historyOf(alert!.id)).toHaveLength(1);
  }, 120_000);
});
