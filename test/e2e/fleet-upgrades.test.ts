/**
 * Signed upgrades with real processes (docs/fleet.md, "Upgrades"): one collector and five agents
 * started from release binaries (compiled as `npm run release` compiles them, once each). An
 * upgrade to a rebuilt binary with a new version reaches all five, canary first, each agent
 * re-executing itself in place; a forced downgrade puts one back on the old version, which
 * reads the newer one's buffer; a broken build (it exits at start) stops at the canary, is
 * rolled back by the agent itself, and the rollout pauses. Points written to every agent all
 * along are read back from the collector exactly once.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileArgs } from "../../deploy/release/binaries.ts";
import { releaseInfo } from "../../deploy/release/build-info.ts";
import { bearer, writeTestAuthFile } from "../helpers/auth.ts";
import { freePort, waitFor } from "../helpers/ports.ts";
import { BUN, Proc, System, waitHealthy } from "./harness.ts";

const FEEDS = ["f1", "f2", "f3", "f4", "f5"];
const V1 = "1.0.0";
const V2 = "1.1.0";
const BROKEN = "1.2.0";
const TENANT = "acme";
const sys = new System({ broker: "embedded", tenant: TENANT, feed: "unused" });
const dir = sys.dir;
const procs: Proc[] = [];
const agents = new Map<string, { proc: Proc; url: string; dataDir: string }>();
let collectorUrl = "";
let admin = "";
let publicKey = "";

function run(cmd: string[]): string {
  const p = Bun.spawnSync(cmd, { stdout: "pipe", stderr: "pipe" });
  if (p.exitCode !== 0) throw new Error(`${cmd.join(" ")} failed: ${p.stderr.toString()}`);
  return p.stdout.toString().trim();
}

/** The release build of the agent, as version `version` (or another entry point: the broken build). */
function compile(version: string, entry?: string): string {
  const out = join(dir, "builds", `outpost-agent-${version}`);
  const args = compileArgs("agent", process.arch === "arm64" ? "linux-arm64" : "linux-x64", { ...releaseInfo(), version }, out);
  run([BUN, ...(entry ? args.map((a) => (a.endsWith("agent/main.ts") ? entry : a)) : args)]);
  return out;
}

// biome-ignore lint/suspicious/noExplicitAny: the interface's JSON, walked by the assertions
type Json = any;

async function api(path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${collectorUrl}${path}`, { ...init, headers: { Authorization: admin, "Svc-Tenant": TENANT, "Content-Type": "application/json", ...(init.headers ?? {}) } });
}

/** Signed with `collector auth sign` and uploaded by the admin. */
async function release(version: string, binary: string): Promise<void> {
  const signature = run([BUN, "collector/main.ts", "auth", "sign", "--key-file", join(dir, "release.key"), "--binary", binary, "--release-version", version]);
  const res = await api(`/svc/fleet/releases/${version}/binaries/${process.arch}`, { method: "PUT", body: Bun.file(binary), headers: { "Content-Type": "application/octet-stream", "Outpost-Signature": signature } });
  expect(res.status, await res.clone().text()).toBe(201);
}

const json = async (res: Response): Promise<Json> => res.json();
async function upgrades(): Promise<Json[]> {
  const res = await api("/svc/fleet/upgrades");
  return res.status === 200 ? json(res) : [];
}
const versions = async () => Object.fromEntries((await upgrades()).map((u) => [u.feed, u.version]));

async function rolloutUntil(id: string, state: string, timeoutMs: number): Promise<Json> {
  try {
    return await waitFor(`rollout ${id} ${state}`, async () => {
      const r = await json(await api(`/svc/fleet/rollouts/${id}`));
      return r.state === state ? r : undefined;
    }, timeoutMs, 250);
  } catch (e) {
    throw new Error(`${(e as Error).message}\n${JSON.stringify(await (await api(`/svc/fleet/rollouts/${id}`)).json())}\n${logs()}`);
  }
}

function logs(): string {
  return procs.map((p) => p.tail(25)).join("\n");
}

/** Writes to every agent all along: one request of 20 points per agent every 100 ms, retried while the agent restarts. */
class Writer {
  readonly accepted = new Map<string, number[]>(FEEDS.map((f) => [f, []]));
  private stopped = false;
  private readonly loops: Promise<void>[] = [];
  readonly base = Date.now() - 3_600_000;
  retries = 0;

  start(): void {
    for (const feed of FEEDS) this.loops.push(this.loop(feed));
  }

  private async loop(feed: string): Promise<void> {
    const mine = this.accepted.get(feed)!;
    for (let i = 0; !this.stopped; i++) {
      const ts = Array.from({ length: 20 }, (_, k) => this.base + i * 20 + k);
      const body = JSON.stringify([{ id: `e2e.${feed}`, dataPoints: ts.map((t) => ({ timestamp: t, value: t - this.base })) }]);
      for (;;) {
        const res = await fetch(`${agents.get(feed)!.url}/svc/metrics/gauges/raw`, { method: "POST", body, headers: { "Content-Type": "application/json", "Svc-Tenant": TENANT } }).catch(() => undefined);
        if (res?.status === 200) break;
        if (res && res.status !== 503) throw new Error(`${feed} answered ${res.status}: ${await res.text()}`);
        if (this.stopped) return;
        this.retries++;
        await Bun.sleep(100);
      }
      mine.push(...ts);
      await Bun.sleep(100);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.loops);
  }
}
const writer = new Writer();

beforeAll(async () => {
  mkdirSync(join(dir, "builds"), { recursive: true });
  const builds = { [V1]: compile(V1), [V2]: compile(V2), [BROKEN]: compile(BROKEN, join(import.meta.dirname, "../fixtures/programs/broken-agent.ts")) };
  publicKey = run([BUN, "collector/main.ts", "auth", "release-key", "--key-file", join(dir, "release.key")]);
  expect(publicKey).toMatch(/^ed25519:[A-Za-z0-9_-]{43}$/);
  const auth = await writeTestAuthFile(
    FEEDS.map((f) => ({ name: f, password: `secret-${f}`, agent: { tenant: TENANT, feed: f } })),
    [{ admin: true }],
    dir,
  );
  admin = bearer(auth.tokens[0]!);
  const httpPort = await freePort();
  const mqttPort = await freePort();
  collectorUrl = `http://127.0.0.1:${httpPort}`;
  const collector = new Proc(
    "collector",
    [BUN, "collector/main.ts", "--http-port", String(httpPort), "--mqtt-port", String(mqttPort), "--data-dir", join(dir, "collector"), "--auth-file", auth.path, "--release-public-key", publicKey, "--log-level", "info"],
    dir,
  );
  procs.push(collector);
  collector.start();
  await waitHealthy(collectorUrl, collector);
  for (const feed of FEEDS) {
    const port = await freePort();
    const dataDir = join(dir, `agent-${feed}`);
    const proc = new Proc(
      feed,
      [
        builds[V1]!, "--broker", `mqtt://127.0.0.1:${mqttPort}`, "--tenant", TENANT, "--feed", feed, "--username", feed, "--data-dir", dataDir,
        "--listen", `127.0.0.1:${port}`, "--interval", "1s", "--host-metrics", "false", "--release-public-key", publicKey,
        "--ack-timeout", "2s", "--reconnect-min", "200ms", "--reconnect-max", "1s", "--log-level", "info",
      ],
      dir,
      { OUTPOST_AGENT_PASSWORD: `secret-${feed}` },
    );
    procs.push(proc);
    agents.set(feed, { proc, url: `http://127.0.0.1:${port}`, dataDir });
    proc.start();
  }
  for (const a of agents.values()) await waitHealthy(a.url, a.proc);
  await waitFor("five agents reporting 1.0.0", async () => Object.values(await versions()).filter((v) => v === V1).length === 5 || undefined, 30_000);
  writer.start();
  await release(V2, builds[V2]!);
  await release(V1, builds[V1]!);
  await release(BROKEN, builds[BROKEN]!);
}, 180_000);

afterAll(async () => {
  await writer.stop();
  for (const p of procs) await p.kill("SIGKILL");
  await sys.stop();
});

describe("signed upgrades with real processes", () => {
  const pids = new Map<string, number | undefined>();

  it("an upgrade to a new version reaches all five agents, canary first, each re-executing in place", async () => {
    for (const [f, a] of agents) pids.set(f, a.proc.pid);
    const res = await api("/svc/fleet/rollouts", { method: "POST", body: JSON.stringify({ version: V2, canary: 1, batches: [50, 100], deadline: "1mn" }) });
    expect(res.status).toBe(201);
    const r = await rolloutUntil((await json(res)).id, "completed", 150_000);
    expect(r.targets.map((t: Json) => `${t.feed}:${t.batch}:${t.state}`)).toEqual(["f1:0:succeeded", "f2:1:succeeded", "f3:1:succeeded", "f4:2:succeeded", "f5:2:succeeded"]);
    // Each batch began once the one before had succeeded.
    const at = (f: string) => r.targets.find((t: Json) => t.feed === f).at;
    expect(at("f1")).toBeLessThanOrEqual(Math.min(at("f2"), at("f3")));
    expect(await versions()).toEqual(Object.fromEntries(FEEDS.map((f) => [f, V2])));
    for (const u of await upgrades()) expect(u.upgrade, u.feed).toMatchObject({ state: "installed", version: V2 });
    for (const [f, a] of agents) {
      // Same process, new program: re-executed in place (systemd would follow it).
      expect(a.proc.running, f).toBe(true);
      expect(a.proc.pid, f).toBe(pids.get(f));
      expect(run([join(a.dataDir, "bin/outpost-agent"), "--version"])).toMatch(new RegExp(`^outpost-agent ${V2.replaceAll(".", "\\.")} `));
      expect(readFileSync(join(dir, `${f}-1.log`), "utf8")).toMatch(/on probation: a batch was acknowledged/);
    }
  }, 200_000);

  it("a downgrade needs force; forced, the old version takes the newer one's buffer over", async () => {
    const refused = await api("/svc/fleet/rollouts", { method: "POST", body: JSON.stringify({ version: V1, feeds: ["f5"] }) });
    expect([refused.status, (await json(refused)).errorMsg]).toEqual([409, `f5 (${V2}) runs a newer version than ${V1}: a downgrade needs "force": true`]);
    const res = await api("/svc/fleet/rollouts", { method: "POST", body: JSON.stringify({ version: V1, feeds: ["f5"], force: true, deadline: "1mn" }) });
    expect(res.status).toBe(201);
    await rolloutUntil((await json(res)).id, "completed", 60_000);
    expect((await versions()).f5).toBe(V1);
    // The version it replaced is kept beside it.
    expect(run([join(agents.get("f5")!.dataDir, "bin/outpost-agent.previous"), "--version"])).toMatch(new RegExp(`^outpost-agent ${V2.replaceAll(".", "\\.")} `));
  }, 90_000);

  it("a broken build stops at the canary, which puts its previous binary back by itself, and the rollout pauses", async () => {
    const canaryPid = agents.get("f1")!.proc.pid;
    const res = await api("/svc/fleet/rollouts", { method: "POST", body: JSON.stringify({ version: BROKEN, canary: 1, batches: [100], deadline: "1mn" }) });
    expect(res.status).toBe(201);
    const r = await rolloutUntil((await json(res)).id, "paused", 60_000);
    expect(r.reason).toMatch(/^f1 failed: the new version exited with code 3 [\d.]+ s after it started, before a batch was acknowledged \(rolled back\)$/);
    expect(r.targets.map((t: Json) => `${t.feed}:${t.state}`)).toEqual(["f1:failed", "f2:pending", "f3:pending", "f4:pending", "f5:pending"]);
    const f1 = (await upgrades()).find((u) => u.feed === "f1");
    expect(f1).toMatchObject({ version: V2, upgrade: { state: "failed", version: BROKEN, rolledBack: true } });
    // Nobody else was asked; the canary runs its previous version again, in the same process.
    for (const u of await upgrades()) if (u.feed !== "f1") expect(u.upgrade?.version, u.feed).not.toBe(BROKEN);
    expect(agents.get("f1")!.proc.running).toBe(true);
    expect(agents.get("f1")!.proc.pid).toBe(canaryPid);
    expect(existsSync(join(agents.get("f1")!.dataDir, "bin/outpost-agent.next"))).toBe(false);
    expect(readFileSync(join(dir, "f1-1.log"), "utf8")).toMatch(/error: this build cannot start/);
  }, 90_000);

  it("every point written to any agent all along is read back from the collector exactly once", async () => {
    await writer.stop();
    // Writes met the agents while they restarted (they were retried, as a client would).
    expect(writer.retries).toBeGreaterThan(0);
    for (const feed of FEEDS) {
      const want = writer.accepted.get(feed)!;
      expect(want.length, feed).toBeGreaterThan(100);
      const read = async () => {
        const q = `start=${writer.base}&end=${writer.base + 10_000_000}&order=ASC&limit=1000000`;
        const res = await api(`/svc/metrics/gauges/e2e.${feed}/raw?${q}`, { headers: { "Content-Type": "" } });
        return res.status === 200 ? ((await res.json()) as { timestamp: number; value: number }[]) : [];
      };
      const got = await waitFor(`${feed}'s ${want.length} points`, async () => {
        const pts = await read();
        return pts.length >= want.length ? pts : undefined;
      }, 60_000, 500).catch(async (e) => {
        throw new Error(`${(e as Error).message}: ${(await read()).length} there\n${logs()}`);
      });
      expect(got.map((p) => p.timestamp), feed).toEqual([...want].sort((a, b) => a - b));
      expect(got.every((p) => p.value === p.timestamp - writer.base), feed).toBe(true);
    }
  }, 120_000);
});
