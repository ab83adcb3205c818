/**
 * SIGHUP re-reads the configuration and applies what can change at run time, and never ends a
 * program; SIGTERM drains and stops within --shutdown-timeout. The real programs.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startMosquitto } from "../helpers/mosquitto.ts";
import { freePort } from "../helpers/ports.ts";
import { ROOT, Running, run } from "../helpers/program.ts";

const dir = mkdtempSync(join(tmpdir(), "outpost-signals-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("agent: SIGHUP", () => {
  it("applies the new log level, host metric filters and credentials; reports what needs a restart; survives a broken file", async () => {
    const mosquitto = await startMosquitto();
    const conf = join(dir, "agent.toml");
    const base = `tenant = "acme"\nfeed = "edge-1"\ndata-dir = "${join(dir, "agent")}"\nbroker = "${mosquitto.url}"\nlisten = "127.0.0.1:0"\nhost-interval = "200ms"\n`;
    writeFileSync(conf, `[agent]\n${base}log-level = "info"\n`);
    const agent = Running.start("agent", ["--config", conf]);
    try {
      await agent.waitForLine(/connected to broker/);
      expect(agent.lines.some((l) => / DEBUG /.test(l))).toBe(false);

      writeFileSync(conf, `[agent]\n${base}log-level = "debug"\nhost-exclude = ["cpu_*"]\nusername = "edge"\npassword = "s3cret"\n`);
      let from = agent.lines.length;
      agent.signal("SIGHUP");
      await agent.waitForLine(/configuration reloaded changed=\["username","password","host-exclude","log-level"\] reloaded=\["log level","host metric filters","broker credentials"\]/, 10_000, from);
      await agent.waitForLine(/reconnecting with the new credentials/, 10_000, from);
      await agent.waitForLine(/ DEBUG /, 10_000, from);
      expect(agent.lines.join("\n")).not.toContain("s3cret");

      // A mistake in the file: the running configuration stays, and so does the agent.
      writeFileSync(conf, `[agent]\n${base}log-level = "debug"\nbrokr = "x"\n`);
      from = agent.lines.length;
      agent.signal("SIGHUP");
      await agent.waitForLine(/configuration not reloaded; the running one is kept err=.*brokr: unknown key \(did you mean "broker"\?\)/, 10_000, from);

      // What cannot change while running is said, not silently ignored.
      writeFileSync(conf, `[agent]\n${base}log-level = "debug"\nhost-exclude = ["cpu_*"]\nusername = "edge"\npassword = "s3cret"\nbatch-points = 100\n`);
      from = agent.lines.length;
      agent.signal("SIGHUP");
      await agent.waitForLine(/option batch-points changed; it takes effect at the next restart/, 10_000, from);
      for (let i = 0; i < 5; i++) agent.signal("SIGHUP");
      await Bun.sleep(500);
      expect(agent.running).toBe(true);

      from = agent.lines.length;
      agent.signal("SIGTERM");
      expect(await agent.exited).toBe(0);
      expect(agent.lines.slice(from).join("\n")).toMatch(/SIGTERM: draining and stopping[\s\S]*agent stopped[\s\S]*INFO {2}stopped/);
    } finally {
      await agent.stop();
      await mosquitto.stop();
    }
  });
});

describe("collector: SIGHUP and SIGTERM", () => {
  it("re-reads the auth file, pushes local triggers again, applies the log level, reports what needs a restart, and stops cleanly", async () => {
    const conf = join(dir, "collector.toml");
    const auth = join(dir, "auth.json");
    const addUser = async (user: string) => {
      const r = await run("collector", ["auth", "add", "--auth-file", auth, "--user", user, "--admin"], { env: { OUTPOST_AUTH_PASSWORD: `${user}-password` } });
      expect(r.code, r.stderr).toBe(0);
    };
    await addUser("admin");
    const mqtt = await freePort();
    const base = `data-dir = "${join(dir, "collector")}"\nauth-file = "${auth}"\nhttp-host = "127.0.0.1"\nhttp-port = 0\nmqtt-host = "127.0.0.1"\nmqtt-port = ${mqtt}\n`;
    writeFileSync(conf, `[collector]\n${base}`);
    const collector = Running.start("collector", ["--config", conf]);
    try {
      await collector.waitForLine(/collector ready/);
      await addUser("ops");
      let from = collector.lines.length;
      collector.signal("SIGHUP");
      await collector.waitForLine(/auth file re-read .*users=2/, 10_000, from);
      await collector.waitForLine(/configuration reloaded changed=\[\] reloaded=\["local trigger and configuration push"\]/, 10_000, from);

      writeFileSync(conf, `[collector]\n${base}default-retention = 30\n`);
      from = collector.lines.length;
      collector.signal("SIGHUP");
      await collector.waitForLine(/option default-retention changed; it takes effect at the next restart/, 10_000, from);

      writeFileSync(conf, `[collector]\n${base}default-retention = 30\nlog-level = "warn"\n`);
      collector.signal("SIGHUP");
      await Bun.sleep(500);
      from = collector.lines.length;
      for (let i = 0; i < 5; i++) collector.signal("SIGHUP");
      await Bun.sleep(500);
      // At warn, the reloads' own info lines are no longer written.
      expect(collector.lines.slice(from).filter((l) => / INFO /.test(l))).toEqual([]);
      expect(collector.running).toBe(true);
      collector.signal("SIGTERM");
      expect(await collector.exited).toBe(0);
    } finally {
      await collector.stop();
    }
  });
});

describe("the stop deadline", () => {
  it("a stop that does not finish within --shutdown-timeout ends the program with a log line and exit code 1", async () => {
    const p = new Running([process.execPath, join(ROOT, "test/fixtures/programs/slow-stop.ts"), "--shutdown-timeout", "1s"]);
    await p.waitForLine(/started/);
    const t0 = Date.now();
    p.signal("SIGTERM");
    expect(await p.exited).toBe(1);
    const took = Date.now() - t0;
    expect(took).toBeGreaterThanOrEqual(900);
    expect(took).toBeLessThan(10_000);
    expect(p.lines.join("\n")).toMatch(/shutdown did not finish in time; exiting anyway timeoutMs=1000/);
  });

  it("a stop signal while starting is handled, not the signal's default end, and its deadline counts from the signal", async () => {
    const p = new Running([process.execPath, join(ROOT, "test/fixtures/programs/slow-stop.ts"), "--shutdown-timeout", "1s"]);
    await p.waitForLine(/starting/);
    const t0 = Date.now();
    p.signal("SIGTERM");
    await p.waitForLine(/SIGTERM while starting: stopping once started/);
    // The fixture's stop never finishes: the deadline ends it, with exit code 1 (a signal's default end is 143).
    expect(await p.exited).toBe(1);
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(p.lines.join("\n")).toMatch(/shutdown did not finish in time; exiting anyway timeoutMs=1000/);
  });

  it("a second signal while stopping exits at once", async () => {
    const p = new Running([process.execPath, join(ROOT, "test/fixtures/programs/slow-stop.ts"), "--shutdown-timeout", "60s"]);
    await p.waitForLine(/started/);
    p.signal("SIGINT");
    await p.waitForLine(/SIGINT: draining and stopping/);
    p.signal("SIGINT");
    expect(await p.exited).toBe(1);
    expect(p.lines.join("\n")).toMatch(/SIGINT again: exiting without waiting/);
  });

  it("SIGHUP while starting is applied once started, never fatal", async () => {
    const p = new Running([process.execPath, join(ROOT, "test/fixtures/programs/slow-stop.ts")]);
    await p.waitForLine(/starting/);
    p.signal("SIGHUP");
    await p.waitForLine(/ started$/);
    await p.waitForLine(/SIGHUP: re-reading the configuration/);
    expect(p.running).toBe(true);
    await p.stop();
  });
});
