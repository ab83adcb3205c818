/**
 * Local actions on the agent against real things: commands run as processes, a real HTTP
 * endpoint, a real syslog daemon (rsyslogd, reading its own socket), the journal in a real
 * SQLite file. What the agent's configuration does not allow never happens.
 */
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ActionJournal } from "../../../agent/actions/journal.ts";
import { LocalActions } from "../../../agent/actions/local-actions.ts";
import { actionsConfig } from "../../../src/agent-config/actions.ts";
import type { Action, ActionDefinition, Alert } from "../../../src/alerts/model.ts";
import { OptionError } from "../../../src/config/options.ts";
import { createLogger } from "../../../src/log/logger.ts";
import { openDatabase } from "../../../src/sqlite/open.ts";
import { Telemetry } from "../../../src/telemetry/registry.ts";
import { waitFor } from "../../helpers/ports.ts";

const dir = mkdtempSync(join(tmpdir(), "outpost-actions-"));
const script = (name: string, body: string) => {
  const f = join(dir, name);
  writeFileSync(f, `#!/bin/sh\n${body}\n`);
  chmodSync(f, 0o755);
  return f;
};
const echo = script("echo.sh", 'echo "$@"');
const chatty = script("chatty.sh", 'head -c 10000 /dev/zero | tr "\\0" x; echo; echo oops >&2; sleep 10');
let plc: ReturnType<typeof Bun.serve>;
const hits: string[] = [];
let rsyslog: ReturnType<typeof spawn> | undefined;
const syslogSocket = join(dir, "log.sock");
const syslogOut = join(dir, "syslog.out");

beforeAll(async () => {
  plc = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (req) => {
      hits.push(new URL(req.url).pathname);
      return new Response("ok");
    },
  });
  writeFileSync(
    join(dir, "rsyslog.conf"),
    [
      `global(workDirectory="${dir}")`,
      'module(load="imuxsock" SysSock.Use="off")',
      `input(type="imuxsock" Socket="${syslogSocket}")`,
      'template(name="line" type="string" string="%syslogfacility-text%.%syslogseverity-text% %syslogtag%%msg%\\n")',
      `*.* action(type="omfile" file="${syslogOut}" template="line")`,
    ].join("\n"),
  );
  rsyslog = spawn("rsyslogd", ["-n", "-f", join(dir, "rsyslog.conf"), "-i", join(dir, "rsyslog.pid")], { stdio: "ignore" });
  await waitFor("rsyslogd's socket", () => (existsSync(syslogSocket) ? true : undefined));
});

afterAll(() => {
  rsyslog?.kill("SIGTERM");
  plc?.stop(true);
  rmSync(dir, { recursive: true, force: true });
});

let seq = 0;
const alert = (triggerId: string, actionIds: string[], extra: Partial<Alert> = {}): Alert =>
  ({
    tenantId: "acme",
    id: `${triggerId}-${++seq}`,
    eventType: "ALERT",
    ctime: Date.now(),
    category: "ALERT",
    text: "too hot",
    severity: "HIGH",
    status: "OPEN",
    lifecycle: [{ status: "OPEN", user: "system", stime: Date.now() }],
    trigger: { tenantId: "acme", id: triggerId, name: triggerId, actions: actionIds.map((actionId) => ({ actionPlugin: "agent", actionId })) },
    ...extra,
  }) as unknown as Alert;

function setup(config: unknown, defs: ActionDefinition[]) {
  const reported: Action[] = [];
  const journalDir = mkdtempSync(join(dir, "journal-"));
  const t = new Telemetry();
  const make = () =>
    new LocalActions({
      tenant: "acme",
      feed: "edge-1",
      config: actionsConfig({ actions: config as never }),
      journalExists: existsSync(join(journalDir, "actions.db")),
      journal: () => new ActionJournal(openDatabase(join(journalDir, "actions.db"))),
      report: async (o) => {
        reported.push(...o);
      },
      counters: { ran: t.counter("ran", ""), failed: t.counter("failed", ""), refused: t.counter("refused", "") },
      log: createLogger("silent"),
    });
  const actions = make();
  actions.setDefinitions(defs);
  return { actions, reported, make };
}

const def = (actionId: string, properties: Record<string, string>, extra: Partial<ActionDefinition> = {}): ActionDefinition => ({ actionPlugin: "agent", actionId, properties, ...extra });

describe("local actions", () => {
  test("write to the system log through its socket, read by rsyslogd with facility, level and tag", async () => {
    const { actions, reported } = setup({ syslog: true, syslog_socket: syslogSocket }, [
      def("log", { run: "syslog", facility: "local3", tag: "pump-7" }),
      def("log-resolved", { run: "syslog", message: ["resolved $", "{triggerName} ($", "{id})"].join("") }, { states: ["RESOLVED"] }),
    ]);
    const a = alert("overheat", ["log", "log-resolved"]);
    actions.onFired([a]);
    actions.onFired([{ ...a, status: "RESOLVED", lifecycle: [...a.lifecycle, { status: "RESOLVED", user: "AutoResolve", stime: Date.now() }] } as Alert]);
    await actions.settled();
    expect(reported.map((r) => [r.actionId, r.result, r.resultMessage])).toEqual([
      ["log", "PROCESSED", `written to ${syslogSocket}`],
      ["log", "PROCESSED", `written to ${syslogSocket}`],
      ["log-resolved", "PROCESSED", `written to ${syslogSocket}`],
    ]);
    const lines = await waitFor("rsyslogd's file", () => {
      const l = existsSync(syslogOut) ? readFileSync(syslogOut, "utf8").trim().split("\n") : [];
      return l.length === 3 ? l : undefined;
    });
    expect(lines).toEqual([
      `local3.err pump-7[${process.pid}]: [OPEN] HIGH alert: overheat: too hot (${a.id})`,
      `local3.notice pump-7[${process.pid}]: [RESOLVED] HIGH alert: overheat: too hot (${a.id})`,
      `daemon.notice outpost[${process.pid}]: resolved overheat (${a.id})`,
    ]);
    await actions.close();
  });

  test("without a system log (no socket) the line goes to the agent's log; without syslog = true it is refused", async () => {
    const missing = setup({ syslog: true, syslog_socket: join(dir, "no-such.sock") }, [def("log", { run: "syslog" })]);
    missing.actions.onFired([alert("t", ["log"])]);
    await missing.actions.settled();
    expect(missing.reported[0]).toMatchObject({ result: "PROCESSED", resultMessage: expect.stringMatching(/^no system log at .*: written to the agent's own log$/) });
    const off = setup({}, [def("log", { run: "syslog" })]);
    off.actions.onFired([alert("t", ["log"])]);
    await off.actions.settled();
    expect(off.reported[0]).toMatchObject({ result: "FAILED", resultMessage: "refused: writing to the system log: [agent.actions] syslog is off" });
  });

  test("nothing is allowed by default; a command runs only as listed, a URL only under an allowed one", async () => {
    const none = setup({}, [def("c", { run: "command", command: JSON.stringify([echo, "hi"]) }), def("w", { run: "webhook", url: `http://127.0.0.1:${plc.port}/plc/a` })]);
    none.actions.onFired([alert("t", ["c", "w"])]);
    await none.actions.settled();
    expect(none.reported.map((r) => r.resultMessage)).toEqual([
      `refused: command ${JSON.stringify([echo, "hi"])} is [agent.actions] allows no commands`,
      `refused: URL http://127.0.0.1:${plc.port}/plc/a is [agent.actions] allows no webhooks`,
    ]);
    const base = `http://127.0.0.1:${plc.port}`;
    const some = setup({ commands: [{ argv: [echo, "hi"] }], webhooks: [{ url: `${base}/plc/` }] }, [
      def("exact", { run: "command", command: JSON.stringify([echo, "hi"]) }),
      def("more-args", { run: "command", command: JSON.stringify([echo, "hi", "there"]) }),
      def("below", { run: "webhook", url: `${base}/plc/valve/3` }),
      def("climbs-out", { run: "webhook", url: `${base}/plc/../admin` }),
      def("encoded-climb", { run: "webhook", url: `${base}/plc/%2e%2e/admin` }),
      def("other-port", { run: "webhook", url: `http://127.0.0.1:${Number(plc.port) + 1}/plc/x` }),
      def("with-user", { run: "webhook", url: `http://u:p@127.0.0.1:${plc.port}/plc/x` }),
    ]);
    hits.length = 0;
    some.actions.onFired([alert("t", ["exact", "more-args", "below", "climbs-out", "encoded-climb", "other-port", "with-user"])]);
    await some.actions.settled();
    const byId = Object.fromEntries(some.reported.map((r) => [r.actionId, r]));
    expect(byId.exact).toMatchObject({ result: "PROCESSED", output: "hi\n" });
    for (const id of ["more-args", "climbs-out", "encoded-climb", "other-port", "with-user"]) expect(byId[id], id).toMatchObject({ result: "FAILED", resultMessage: expect.stringMatching(/^refused: /) });
    expect(byId.below).toMatchObject({ result: "PROCESSED", resultMessage: `POST ${base}/plc/valve/3 answered 200` });
    expect(hits).toEqual(["/plc/valve/3"]);
  });

  test("a command past its timeout is stopped, its output cut to the limit", async () => {
    const { actions, reported } = setup({ commands: [{ argv: [chatty] }], output_limit: "1KB" }, [def("chatty", { run: "command", command: JSON.stringify([chatty]), timeout: "500" })]);
    const started = Date.now();
    actions.onFired([alert("t", ["chatty"])]);
    await actions.settled();
    expect(Date.now() - started).toBeLessThan(9000);
    expect(reported[0]).toMatchObject({ result: "FAILED", resultMessage: `${chatty} did not end within 500 ms: stopped (SIGTERM)` });
    expect(reported[0]!.output).toHaveLength(1024);
    expect(reported[0]!.output).toMatch(/^x+$/);
  });

  test("each firing runs once; a trigger's actions beyond max_runs per rate_window are refused", async () => {
    const { actions, reported } = setup({ commands: [{ argv: [echo], extra_args: true }], max_runs: 2, rate_window: "1h" }, [def("e", { run: "command", command: JSON.stringify([echo, "x"]) })]);
    const a = alert("busy", ["e"]);
    actions.onFired([a]);
    actions.onFired([a]); // the same alert in the same state again: no second run
    actions.onFired([alert("busy", ["e"])]);
    await actions.settled();
    actions.onFired([alert("busy", ["e"])]);
    actions.onFired([alert("other", ["e"])]);
    await actions.settled();
    expect(reported.map((r) => [r.event?.trigger?.id, r.result])).toEqual([
      ["busy", "PROCESSED"],
      ["busy", "PROCESSED"],
      ["busy", "FAILED"],
      ["other", "PROCESSED"],
    ]);
    expect(reported[2]!.resultMessage).toBe("refused: rate limit: trigger busy already ran 2 actions within 3600 s ([agent.actions] max_runs, rate_window)");
  });

  test("mistakes in [agent.actions] are refused in one line", () => {
    const bad = (t: unknown) => {
      try {
        actionsConfig({ actions: t as never });
      } catch (e) {
        expect(e).toBeInstanceOf(OptionError);
        return (e as Error).message;
      }
      return "accepted";
    };
    expect(bad({ commands: [{ argv: ["siren", "on"] }] })).toBe("actions.commands[0].argv must start with the program's absolute path");
    expect(bad({ commands: [{ argv: ["/bin/x"], env: { LD_PRELOAD: "/tmp/x.so" } }] })).toBe('actions.commands[0].env: "LD_PRELOAD" is not a variable a command may be given');
    expect(bad({ webhooks: [{ url: "ftp://h/x" }] })).toBe("actions.webhooks[0].url must be http or https");
    expect(bad({ sylog: true })).toMatch(/^actions\.sylog: unknown key \(.*syslog.*\)$/);
  });
});
