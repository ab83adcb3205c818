import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { body, startTestCollector, type TestCollector } from "../helpers/collector.ts";
import { type AlertsClient, alertsClient, eventually, expectError, nextTimestamp, thresholdTrigger } from "./helpers.ts";

interface Received {
  path: string;
  method: string;
  body: string;
}

let col: TestCollector;
let api: AlertsClient;
let hook: ReturnType<typeof Bun.serve>;
const received: Received[] = [];
/** Requests to /slow wait until the test lets them go. */
let releaseSlow: () => void = () => {};
const slowGate = () => new Promise<void>((r) => (releaseSlow = r));
let gate: Promise<void> = slowGate();

let smtp: SMTPServer;
let smtpPort = 0;
const mails: string[] = [];
let dir: string;

beforeAll(async () => {
  hook = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const path = new URL(req.url).pathname;
      received.push({ path, method: req.method, body: await req.text() });
      if (path === "/fail") return new Response("no", { status: 503 });
      if (path === "/slow") await gate;
      if (path === "/never") await new Promise(() => {});
      return new Response("ok");
    },
  });
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, _session, cb) {
      let text = "";
      stream.on("data", (d: Buffer) => (text += d.toString()));
      stream.on("end", () => {
        mails.push(text);
        cb();
      });
    },
  });
  await new Promise<void>((r) => smtp.listen(0, "127.0.0.1", () => r()));
  smtpPort = (smtp.server.address() as { port: number }).port;
  dir = mkdtempSync(join(tmpdir(), "outpost-actions-"));
  col = await startTestCollector();
  api = alertsClient(col);
});
afterAll(async () => {
  releaseSlow();
  await col.close();
  hook.stop(true);
  await new Promise<void>((r) => smtp.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

const hookUrl = (path: string) => `http://127.0.0.1:${hook.port}${path}`;

/** A trigger on `<id>.v > 10` linked to the given actions, fired once; answers the alert. */
async function fireWithActions(id: string, actions: unknown[], trigger: Record<string, unknown> = {}) {
  await api.ok("POST", "/triggers/trigger", thresholdTrigger(id, `${id}.v`, 10, { actions, ...trigger }));
  await api.ok("POST", "/data", [{ id: `${id}.v`, timestamp: nextTimestamp(), value: 50 }]);
  const list = await api.ok("GET", `/?triggerIds=${id}`);
  return list[0];
}

interface ActionJson {
  actionPlugin: string;
  actionId: string;
  eventId: string;
  result: string;
  event?: { id: string; status?: string };
}

const historyOf = (eventId: string, extra = ""): Promise<ActionJson[]> => api.ok("GET", `/actions/history?alertIds=${eventId}${extra}`);
/** The history of an alert once `n` actions ran to their end (PROCESSED or FAILED). */
async function settled(eventId: string, n = 1): Promise<ActionJson[]> {
  return eventually(
    () => historyOf(eventId),
    (h) => h.length === n && h.every((a) => a.result !== "WAITING"),
    `history of ${eventId} to settle`,
  );
}

describe("plugins and action definitions", () => {
  it("lists the plugins and the properties each reads", async () => {
    expect(await api.ok("GET", "/plugins")).toEqual(["agent", "email", "file", "webhook"]);
    expect(await api.ok("GET", "/plugins/webhook")).toEqual(expect.arrayContaining(["url", "method", "timeout"]));
    expect(await api.ok("GET", "/plugins/file")).toEqual(["path"]);
    expect(await api.ok("GET", "/plugins/email")).toEqual(expect.arrayContaining(["to", "from", "cc", "mail"]));
    await expectError(await api.get("/plugins/sms"), 404);
  });

  it("creates, reads, lists, updates and deletes definitions", async () => {
    const def = { actionPlugin: "webhook", actionId: "crud-hook", properties: { url: hookUrl("/ok"), method: "PUT" }, states: ["OPEN"] };
    // `global` as upstream always writes it.
    expect(await api.ok("POST", "/actions", def)).toEqual({ tenantId: "t1", global: false, ...def });
    await expectError(await api.post("/actions", def), 400, /Existing/);
    expect((await api.ok("GET", "/actions")).webhook).toContain("crud-hook");
    expect(await api.ok("GET", "/actions/plugin/webhook")).toContain("crud-hook");
    expect(await api.ok("GET", "/actions/webhook/crud-hook")).toMatchObject({ properties: { method: "PUT" } });
    const upd = await api.ok("PUT", "/actions", { ...def, properties: { url: hookUrl("/other") } });
    expect(upd.properties).toEqual({ url: hookUrl("/other") });
    await expectError(await api.put("/actions", { ...def, actionId: "missing" }), 404);
    expect((await api.ok("DELETE", "/actions/webhook/crud-hook")).actionId).toBe("crud-hook");
    await expectError(await api.get("/actions/webhook/crud-hook"), 404);
    await expectError(await api.del("/actions/webhook/crud-hook"), 404);
  });

  it("validates definitions against their plugin", async () => {
    const post = (body: unknown) => api.post("/actions", body);
    await expectError(await post({ actionPlugin: "sms", actionId: "a", properties: {} }), 400, /not deployed/);
    await expectError(await post({ actionPlugin: "webhook", actionId: "a", properties: { url: hookUrl("/"), colour: "red" } }), 400, /colour/);
    await expectError(await post({ actionPlugin: "webhook", actionId: "a", properties: { url: "ftp://x" } }), 400, /url/);
    await expectError(await post({ actionPlugin: "webhook", actionId: "a", properties: { url: hookUrl("/"), timeout: "soon" } }), 400, /timeout/);
    await expectError(await post({ actionPlugin: "email", actionId: "a", properties: { to: "not an address" } }), 400, /to/);
    await expectError(await post({ actionPlugin: "email", actionId: "a", properties: {} }), 400, /recipient/);
    await expectError(await post({ actionPlugin: "file", actionId: "a", properties: { path: "relative/file" } }), 400, /absolute/);
    await expectError(await post({ actionPlugin: "file", actionId: "a" }), 400, /properties/);
    await expectError(
      await post({ actionPlugin: "file", actionId: "a", properties: { path: "/tmp/x" }, calendar: { startTime: "Someday", endTime: "Dec" } }),
      400,
      /calendar/,
    );
    await expectError(await post({ actionPlugin: "file", actionId: "a", properties: { path: "/tmp/x" }, states: ["CLOSED"] }), 400, /states/);
  });

  it("checks definitions of the agent plugin (run by agents) with the rules the agents apply", async () => {
    const post = (properties: Record<string, string>) => api.post("/actions", { actionPlugin: "agent", actionId: "local", properties });
    expect(await api.ok("GET", "/plugins/agent")).toEqual(expect.arrayContaining(["run", "command", "url", "facility"]));
    await expectError(await post({}), 400, /run is required/);
    await expectError(await post({ run: "shell" }), 400, /run must be one of command, webhook, syslog/);
    await expectError(await post({ run: "command" }), 400, /command is required/);
    await expectError(await post({ run: "command", command: "/usr/bin/siren on" }), 400, /JSON array of strings/);
    await expectError(await post({ run: "command", command: '["siren", "on"]' }), 400, /absolute path/);
    await expectError(await post({ run: "webhook", url: "file:///etc/passwd" }), 400, /http or https/);
    await expectError(await post({ run: "syslog", facility: "nowhere" }), 400, /facility/);
    await expectError(await post({ run: "syslog", colour: "red" }), 400, /colour/);
    expect(await api.ok("POST", "/actions", { actionPlugin: "agent", actionId: "siren", properties: { run: "command", command: '["/usr/local/bin/siren", "on"]', "command.RESOLVED": '["/usr/local/bin/siren", "off"]' } })).toMatchObject({ actionId: "siren" });
  });

  it("never runs agent actions at the collector, even for an alert it fires itself", async () => {
    await api.ok("POST", "/actions", { actionPlugin: "agent", actionId: "not-here", properties: { run: "webhook", url: hookUrl("/agent-only") } });
    const alert = await fireWithActions("agent-only", [{ actionPlugin: "agent", actionId: "not-here" }]);
    await Bun.sleep(300);
    expect(await historyOf(alert.id)).toEqual([]);
    expect(received.filter((r) => r.path === "/agent-only")).toEqual([]);
  });

  it("removes a deleted definition from the triggers that linked to it", async () => {
    await api.ok("POST", "/actions", { actionPlugin: "file", actionId: "linked", properties: { path: join(dir, "linked.jsonl") } });
    await api.ok("POST", "/triggers", { id: "linking", actions: [{ actionPlugin: "file", actionId: "linked" }] });
    await api.ok("DELETE", "/actions/file/linked");
    expect((await api.ok("GET", "/triggers/linking")).actions).toBeUndefined();
  });
});

describe("plugins act for real, in the background", () => {
  it("webhook: posts the alert as JSON; history goes WAITING → PROCESSED; thin history keeps only the id", async () => {
    await api.ok("POST", "/actions", { actionPlugin: "webhook", actionId: "hook-ok", properties: { url: hookUrl("/ok") } });
    const alert = await fireWithActions("wh-1", [{ actionPlugin: "webhook", actionId: "hook-ok" }]);
    const action = (await settled(alert.id))[0]!;
    expect(action).toMatchObject({ actionPlugin: "webhook", actionId: "hook-ok", eventId: alert.id, result: "PROCESSED", event: { id: alert.id } });
    const got = received.filter((r) => r.path === "/ok");
    expect(got.length).toBe(1);
    expect(got[0]!.method).toBe("POST");
    expect(JSON.parse(got[0]!.body)).toMatchObject({ id: alert.id, status: "OPEN", trigger: { id: "wh-1" } });
    const thin = (await historyOf(alert.id, "&thin=true"))[0]!;
    expect(thin.event).toBeUndefined();
    expect(thin.eventId).toBe(alert.id);
  });

  it("webhook: a failing receiver is retried, then the action is FAILED", async () => {
    await api.ok("POST", "/actions", { actionPlugin: "webhook", actionId: "hook-fail", properties: { url: hookUrl("/fail"), retries: "1" } });
    const alert = await fireWithActions("wh-2", [{ actionPlugin: "webhook", actionId: "hook-fail" }]);
    const action = (await settled(alert.id))[0]!;
    expect(action.result).toBe("FAILED");
    expect(received.filter((r) => r.path === "/fail").length).toBe(2);
  });

  it("webhook: a receiver that never answers times out and fails", async () => {
    await api.ok("POST", "/actions", {
      actionPlugin: "webhook",
      actionId: "hook-never",
      properties: { url: hookUrl("/never"), timeout: "200", retries: "0" },
    });
    const alert = await fireWithActions("wh-3", [{ actionPlugin: "webhook", actionId: "hook-never" }]);
    const action = (await settled(alert.id))[0]!;
    expect(action.result).toBe("FAILED");
  });

  it("a slow plugin holds up neither the data path nor other requests", async () => {
    await api.ok("POST", "/actions", { actionPlugin: "webhook", actionId: "hook-slow", properties: { url: hookUrl("/slow") } });
    const alert = await fireWithActions("wh-4", [{ actionPlugin: "webhook", actionId: "hook-slow" }]);
    // the alert is stored and answered while the webhook is still waiting for its receiver
    await eventually(() => Promise.resolve(received.filter((r) => r.path === "/slow").length), (n) => n === 1, "the slow request to arrive");
    expect((await historyOf(alert.id))[0]!.result).toBe("WAITING");
    await api.ok("POST", "/data", [{ id: "wh-4.v", timestamp: nextTimestamp(), value: 60 }]);
    expect(await api.ok("GET", "/?triggerIds=wh-4")).toHaveLength(2);
    releaseSlow();
    gate = Promise.resolve();
    await eventually(
      () => historyOf(alert.id),
      (h) => h[0]?.result === "PROCESSED",
      "the slow action to complete",
    );
  });

  it("email: sends the alert through SMTP", async () => {
    await api.ok("POST", "/actions", {
      actionPlugin: "email",
      actionId: "mail-ops",
      properties: { to: "ops@example.com", cc: "boss@example.com", from: "outpost@example.com", "mail.smtp.host": "127.0.0.1", "mail.smtp.port": String(smtpPort) },
    });
    const alert = await fireWithActions("mail-1", [{ actionPlugin: "email", actionId: "mail-ops" }], { name: "Disk almost full" });
    const action = (await settled(alert.id))[0]!;
    expect(action.result).toBe("PROCESSED");
    expect(mails).toHaveLength(1);
    expect(mails[0]).toMatch(/To: ops@example.com/);
    expect(mails[0]).toMatch(/Cc: boss@example.com/);
    expect(mails[0]).toMatch(/Subject: \[OPEN\] MEDIUM alert: Disk almost full/);
    expect(mails[0]).toContain(alert.id);
  });

  it("email: an unreachable server fails the action", async () => {
    const closed = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
    const port = closed.port;
    closed.stop(true);
    await api.ok("POST", "/actions", {
      actionPlugin: "email",
      actionId: "mail-nowhere",
      properties: { to: "ops@example.com", "mail.smtp.host": "127.0.0.1", "mail.smtp.port": String(port) },
    });
    const alert = await fireWithActions("mail-2", [{ actionPlugin: "email", actionId: "mail-nowhere" }]);
    expect((await settled(alert.id))[0]!.result).toBe("FAILED");
  });

  it("file: appends one JSON line per alert", async () => {
    const path = join(dir, "nested", "alerts.jsonl");
    await api.ok("POST", "/actions", { actionPlugin: "file", actionId: "to-file", properties: { path } });
    const first = await fireWithActions("file-1", [{ actionPlugin: "file", actionId: "to-file" }]);
    await settled(first.id);
    await api.ok("POST", "/data", [{ id: "file-1.v", timestamp: nextTimestamp(), value: 70 }]);
    const both = await api.ok("GET", "/?triggerIds=file-1&sort=ctime&order=asc");
    await settled(both[1].id);
    const lines = readFileSync(path, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(lines.map((l) => l.id)).toEqual([both[0].id, both[1].id]);
  });
});

describe("action constraints", () => {
  it("runs an action only in the alert states it names; lifecycle changes run actions again", async () => {
    const path = join(dir, "states.jsonl");
    await api.ok("POST", "/actions", { actionPlugin: "file", actionId: "on-resolve", properties: { path }, states: ["RESOLVED"] });
    await api.ok("POST", "/actions", { actionPlugin: "file", actionId: "on-ack", properties: { path }, states: ["ACKNOWLEDGED"] });
    const alert = await fireWithActions("st-1", [
      { actionPlugin: "file", actionId: "on-resolve" },
      { actionPlugin: "file", actionId: "on-ack" },
    ]);
    expect(await historyOf(alert.id)).toEqual([]);
    await api.ok("PUT", `/ack/${alert.id}?ackBy=ann`);
    const acked = (await settled(alert.id))[0]!;
    expect(acked).toMatchObject({ actionId: "on-ack", event: { status: "ACKNOWLEDGED" } });
    await api.ok("PUT", `/resolve/${alert.id}`);
    const after = await settled(alert.id, 2);
    expect(after.map((a: { actionId: string }) => a.actionId).sort()).toEqual(["on-ack", "on-resolve"]);
    const statuses = readFileSync(path, "utf8").trim().split("\n").map((l) => JSON.parse(l).status);
    expect(statuses).toEqual(["ACKNOWLEDGED", "RESOLVED"]);
  });

  it("constraints on the trigger's link replace those of the definition", async () => {
    await api.ok("POST", "/actions", { actionPlugin: "file", actionId: "def-resolved", properties: { path: join(dir, "override.jsonl") }, states: ["RESOLVED"] });
    const alert = await fireWithActions("st-2", [{ actionPlugin: "file", actionId: "def-resolved", states: ["OPEN"] }]);
    expect((await settled(alert.id))[0]!.event?.status).toBe("OPEN");
  });

  it("calendars: outside the interval nothing runs; inRange false inverts", async () => {
    const past = { startTime: "2000.01.01", endTime: "2000.01.02", relative: false };
    await api.ok("POST", "/actions", { actionPlugin: "file", actionId: "cal-past", properties: { path: join(dir, "cal.jsonl") }, calendar: past });
    await api.ok("POST", "/actions", {
      actionPlugin: "file",
      actionId: "cal-not-past",
      properties: { path: join(dir, "cal.jsonl") },
      calendar: { ...past, inRange: false },
    });
    const alert = await fireWithActions("cal-1", [
      { actionPlugin: "file", actionId: "cal-past" },
      { actionPlugin: "file", actionId: "cal-not-past" },
    ]);
    const history = await settled(alert.id);
    expect(history.map((a: { actionId: string }) => a.actionId)).toEqual(["cal-not-past"]);
  });

  it("global definitions run for every trigger; EVENT triggers run actions when the event is created", async () => {
    const tenant = "globals";
    const g = alertsClient(col, tenant);
    const path = join(dir, "global.jsonl");
    await g.ok("POST", "/actions", { actionPlugin: "file", actionId: "everything", global: true, properties: { path } });
    await g.ok("POST", "/triggers/trigger", {
      trigger: { id: "ev-trigger", enabled: true, eventType: "EVENT" },
      conditions: [{ type: "THRESHOLD", dataId: "gv", operator: "GT", threshold: 1 }],
    });
    await g.ok("POST", "/data", [{ id: "gv", timestamp: nextTimestamp(), value: 2 }]);
    const [event] = await g.ok("GET", "/events?triggerIds=ev-trigger");
    await eventually(
      () => g.ok("GET", `/actions/history?eventIds=${event.id}`),
      (h: { result: string }[]) => h.length === 1 && h[0]!.result === "PROCESSED",
      "the global action",
    );
    expect(JSON.parse(readFileSync(path, "utf8").trim()).id).toBe(event.id);
    // tenant t1 sees none of it
    expect(await api.ok("GET", `/actions/history?eventIds=${event.id}`)).toEqual([]);
  });
});

describe("action history", () => {
  it("filters by plugin, action, result and time; pages; deletes by filter", async () => {
    const all = await api.ok("GET", "/actions/history");
    expect(all.length).toBeGreaterThan(3);
    const webhooks = await api.ok("GET", "/actions/history?actionPlugins=webhook");
    expect(webhooks.every((a: { actionPlugin: string }) => a.actionPlugin === "webhook")).toBe(true);
    const failed = await api.ok("GET", "/actions/history?results=FAILED");
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.every((a: { result: string }) => a.result === "FAILED")).toBe(true);
    expect(await api.ok("GET", "/actions/history?actionIds=hook-ok")).toHaveLength(1);
    expect(await api.ok("GET", `/actions/history?startTime=${Date.now() + 60_000}`)).toEqual([]);
    const page = await api.get("/actions/history?per_page=2&sort=ctime&order=asc");
    expect(page.headers.get("X-Total-Count")).toBe(String(all.length));
    expect(await body(page)).toHaveLength(2);
    await expectError(await api.get("/actions/history?plugin=webhook"), 400, /plugin/);

    expect(await api.ok("PUT", "/actions/history/delete?actionPlugins=email")).toEqual({ deleted: 2 });
    expect(await api.ok("GET", "/actions/history?actionPlugins=email")).toEqual([]);
    const rest = await api.ok("PUT", "/actions/history/delete");
    expect(rest.deleted).toBe(all.length - 2);
    expect(await api.ok("GET", "/actions/history")).toEqual([]);
  });
});
