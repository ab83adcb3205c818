import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { freePort, waitFor } from "../helpers/ports.ts";
import { BUN, Proc, waitHealthy } from "./harness.ts";

/**
 * The data folders of both programs, their databases and the collector's backups, made by real
 * processes started under umask 022 (as outside systemd): nothing in them may be readable by
 * another user. The folder around them is made traversable, so that only their own modes stand
 * between the user `nobody` and the data (the issue: nobody read another tenant's triggers).
 */
const procs: Proc[] = [];
let root: string | undefined;
afterEach(async () => {
  for (const p of procs.splice(0)) await p.kill("SIGKILL");
  if (root) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

const mode = (p: string) => statSync(p).mode & 0o777;

/** Runs a program under umask 022. */
function start(name: string, args: string[]): Proc {
  const p = new Proc(name, ["sh", "-c", 'umask 022; exec "$@"', "sh", BUN, ...args], root!);
  procs.push(p);
  p.start();
  return p;
}

/** Modes of every file and folder under `dir` that another user could use. */
function openToOthers(dir: string): string[] {
  const out: string[] = [];
  if ((mode(dir) & 0o077) !== 0) out.push(`. ${mode(dir).toString(8)}`);
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const p = join(e.parentPath, e.name);
    if ((mode(p) & 0o077) !== 0) out.push(`${p.slice(dir.length + 1)} ${mode(p).toString(8)}`);
  }
  return out;
}

/** Whether the user nobody can read the file (root's test runs the check as nobody). */
function nobodyReads(path: string): boolean {
  return Bun.spawnSync(["runuser", "-u", "nobody", "--", "cat", path], { stdout: "ignore", stderr: "ignore" }).exitCode === 0;
}

describe("data folders are private whatever the umask", () => {
  it("collector, agent and backup: folders 0700, files 0600; wider ones from before are tightened at start, said once", async () => {
    root = mkdtempSync(join(tmpdir(), "outpost-private-"));
    chmodSync(root, 0o755);
    const httpPort = await freePort();
    const mqttPort = await freePort();
    const agentPort = await freePort();
    const data = join(root, "data");
    const agentData = join(root, "agent-data");
    const collectorArgs = ["collector/main.ts", "--http-port", String(httpPort), "--mqtt-port", String(mqttPort), "--data-dir", data, "--log-level", "info"];
    const url = `http://127.0.0.1:${httpPort}`;
    let collector = start("collector", collectorArgs);
    await waitHealthy(url, collector);
    const agent = start("agent", ["agent/main.ts", "--broker", `mqtt://127.0.0.1:${mqttPort}`, "--tenant", "acme", "--feed", "edge", "--data-dir", agentData, "--listen", `127.0.0.1:${agentPort}`, "--interval", "1s"]);
    await waitHealthy(`http://127.0.0.1:${agentPort}`, agent);
    // A trigger (in alerts.db) and points, through the agent, into metrics.db.
    const trig = await fetch(`${url}/svc/alerts/triggers`, { method: "POST", body: JSON.stringify({ id: "secret-trigger", name: "secret" }), headers: { "Content-Type": "application/json", "Svc-Tenant": "acme" } });
    expect(trig.status).toBe(200);
    const w = await fetch(`http://127.0.0.1:${agentPort}/svc/metrics/gauges/g/raw`, { method: "POST", body: JSON.stringify([{ timestamp: Date.now(), value: 1 }]), headers: { "Content-Type": "application/json" } });
    expect(w.status).toBe(200);
    await waitFor("the point at the collector", async () => ((await fetch(`${url}/svc/metrics/gauges/g/raw`, { headers: { "Svc-Tenant": "acme" } })).status === 200 ? true : undefined));

    for (const f of ["metrics.db", "metrics.db-wal", "alerts.db", "alerts.db-wal", "alerts.db-shm", "inventory.db", "collector.lock"]) expect(existsSync(join(data, f)), f).toBe(true);
    for (const f of ["buffer.db", "buffer.db-wal", "events.db", "space-reserve"]) expect(existsSync(join(agentData, f)), f).toBe(true);
    expect(openToOthers(data)).toEqual([]);
    expect(openToOthers(agentData)).toEqual([]);
    expect(nobodyReads(join(data, "alerts.db"))).toBe(false);
    expect(nobodyReads(join(agentData, "buffer.db"))).toBe(false);

    // A backup, under the same umask.
    const backup = join(root, "backup");
    const b = Bun.spawnSync(["sh", "-c", 'umask 022; exec "$@"', "sh", BUN, "collector/main.ts", "backup", backup, "--data-dir", data], { stderr: "pipe" });
    expect(b.exitCode, b.stderr.toString()).toBe(0);
    expect(readdirSync(backup)).toContain("alerts.db");
    expect(openToOthers(backup)).toEqual([]);

    // Folders and files left open by an older version: tightened at the next start, in one line.
    await collector.kill("SIGTERM");
    chmodSync(data, 0o755);
    for (const f of readdirSync(data)) chmodSync(join(data, f), 0o644);
    expect(nobodyReads(join(data, "alerts.db"))).toBe(true);
    collector = start("collector-again", collectorArgs);
    await waitHealthy(url, collector);
    expect(openToOthers(data)).toEqual([]);
    expect(nobodyReads(join(data, "alerts.db"))).toBe(false);
    const log = readFileSync(join(root, "collector-again-1.log"), "utf8");
    const lines = log.split("\n").filter((l) => l.includes("the data folder was open to other users"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/changed=\d+/);
  }, 120_000);
});
