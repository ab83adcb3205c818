/**
 * Whole-system test harness: real collector, agent and Mosquitto processes on ephemeral
 * ports, real SQLite files in a temp folder, points pushed over HTTP and read back over HTTP.
 */
import { chmodSync, chownSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import type { Subprocess } from "bun";
import { expect } from "vitest";
import { MOSQUITTO, portOpen, writeMosquittoConfig } from "../helpers/mosquitto.ts";
import { freePort, waitFor } from "../helpers/ports.ts";

export const BUN = resolve("node_modules/.bin/bun");

export class Proc {
  private p: Subprocess | undefined;
  private runs = 0;
  constructor(
    readonly name: string,
    private readonly cmd: string[],
    private readonly logDir: string,
    /** Extra environment (secrets go here, never on the command line). */
    private readonly env: Record<string, string> = {},
  ) {}

  start(): void {
    const log = join(this.logDir, `${this.name}-${++this.runs}.log`);
    // Both programs log to stderr; stdout only carries --help.
    this.p = Bun.spawn(this.cmd, { stdout: "ignore", stderr: Bun.file(log), stdin: "ignore", env: { ...process.env, ...this.env } });
  }

  get pid(): number | undefined {
    return this.p?.pid;
  }

  get running(): boolean {
    return this.p !== undefined && this.p.exitCode === null && this.p.signalCode === null;
  }

  async kill(signal: "SIGKILL" | "SIGTERM"): Promise<void> {
    if (!this.p) return;
    this.p.kill(signal);
    await this.p.exited;
    this.p = undefined;
  }

  /** The last lines of this process's logs, for failure messages. */
  tail(lines = 15): string {
    let out = "";
    for (let i = 1; i <= this.runs; i++) {
      try {
        const text = readFileSync(join(this.logDir, `${this.name}-${i}.log`), "utf8").trimEnd().split("\n").slice(-lines).join("\n");
        out += `--- ${this.name} run ${i}\n${text}\n`;
      } catch {}
    }
    return out;
  }
}

export async function waitHealthy(url: string, proc: Proc, timeoutMs = 20_000): Promise<void> {
  await waitFor(`${proc.name} at ${url}`, async () => {
    if (!proc.running) throw new Error(`${proc.name} exited\n${proc.tail()}`);
    const r = await fetch(`${url}/health`).catch(() => undefined);
    return r?.status === 200 ? true : undefined;
  }, timeoutMs);
}

/** Credentials of a system run with an auth file (test/helpers/auth.ts writes it). */
export interface SystemAuth {
  authFile: string;
  /** The agent's credential (an agent of the system's tenant and feed). */
  agent: { user: string; password: string };
  /** The collector's account on Mosquitto. */
  collector?: { user: string; password: string };
  /** Authorization header for reading back over HTTP. */
  http: string;
}

export interface SystemOptions {
  broker: "embedded" | "mosquitto";
  tenant: string;
  feed: string;
  /** Data folders (default: under the system's temp folder), e.g. on a small test filesystem. */
  collectorDataDir?: string;
  agentDataDir?: string;
  /** Extra agent options. */
  agentArgs?: string[];
  /** Extra environment of the agent. */
  agentEnv?: Record<string, string>;
  auth?: SystemAuth;
}

/**
 * Mosquitto configured by `collector auth mosquitto-files`, as docs/security.md tells: the
 * generated conf (with its listener) included, the password and ACL files (and `alsoFor`, e.g.
 * a TLS key) readable by the mosquitto user it drops privileges to. Returns the conf file.
 */
export function writeSecuredMosquittoConf(dir: string, authFile: string, port: number, extraArgs: string[] = [], alsoFor: string[] = []): string {
  const out = join(dir, "mosquitto.d");
  const p = Bun.spawnSync([BUN, "collector/main.ts", "auth", "mosquitto-files", "--auth-file", authFile, "--out-dir", out, "--listener", `${port} 127.0.0.1`, ...extraArgs], { stderr: "pipe" });
  if (p.exitCode !== 0) throw new Error(`auth mosquitto-files failed: ${p.stderr.toString()}`);
  const uid = Bun.spawnSync(["id", "-u", "mosquitto"]).stdout.toString().trim();
  if (process.getuid?.() === 0 && uid !== "") {
    for (const f of [join(out, "passwords"), join(out, "acl"), ...alsoFor]) chownSync(f, Number(uid), -1);
    // mkdtemp makes folders 0700: the mosquitto user must be able to pass through them.
    for (const d of new Set([dir, ...alsoFor.map((f) => dirname(f))])) chmodSync(d, 0o711);
  }
  const conf = join(dir, "mosquitto.conf");
  writeFileSync(conf, `persistence false\ninclude_dir ${out}\n`);
  return conf;
}

/** One collector, one agent and, with Mosquitto, a private broker; all restartable on the same ports. */
export class System {
  readonly dir = mkdtempSync(join(tmpdir(), "outpost-e2e-"));
  collector!: Proc;
  agent!: Proc;
  mosquitto?: Proc;
  collectorUrl = "";
  agentUrl = "";
  mqttPort = 0;

  constructor(readonly o: SystemOptions) {}

  async start(): Promise<void> {
    const httpPort = await freePort();
    const agentPort = await freePort();
    this.mqttPort = await freePort();
    this.collectorUrl = `http://127.0.0.1:${httpPort}`;
    this.agentUrl = `http://127.0.0.1:${agentPort}`;
    const broker = `mqtt://127.0.0.1:${this.mqttPort}`;
    const auth = this.o.auth;
    if (this.o.broker === "mosquitto") {
      const conf = auth ? writeSecuredMosquittoConf(this.dir, auth.authFile, this.mqttPort) : writeMosquittoConfig(this.dir, this.mqttPort);
      this.mosquitto = new Proc("mosquitto", [MOSQUITTO, "-c", conf], this.dir);
      await this.startMosquitto();
    }
    const mqttArgs = this.o.broker === "mosquitto" ? ["--mqtt-port", "0", "--broker", broker] : ["--mqtt-port", String(this.mqttPort), "--mqtt-host", "127.0.0.1"];
    const authArgs = auth ? ["--auth-file", auth.authFile, ...(auth.collector ? ["--broker-username", auth.collector.user] : [])] : [];
    this.collector = new Proc(
      "collector",
      [BUN, "collector/main.ts", "--http-port", String(httpPort), "--http-host", "127.0.0.1", "--data-dir", this.o.collectorDataDir ?? join(this.dir, "collector"), ...mqttArgs, ...authArgs, "--log-level", "info"],
      this.dir,
      auth?.collector ? { OUTPOST_BROKER_PASSWORD: auth.collector.password } : {},
    );
    this.agent = new Proc(
      "agent",
      [
        BUN, "agent/main.ts", "--broker", broker, "--tenant", this.o.tenant, "--feed", this.o.feed,
        "--data-dir", this.o.agentDataDir ?? join(this.dir, "agent"), "--listen", `127.0.0.1:${agentPort}`, "--interval", "2s",
        // Short waits keep the test quick; the replay limit stays on, set above the push rate.
        "--ack-timeout", "2s", "--reconnect-min", "200ms", "--reconnect-max", "1s", "--replay-rate", "50000", "--log-level", "info",
        ...(auth ? ["--username", auth.agent.user] : []),
        ...(this.o.agentArgs ?? []),
      ],
      this.dir,
      { ...this.o.agentEnv, ...(auth ? { OUTPOST_AGENT_PASSWORD: auth.agent.password } : {}) },
    );
    await this.startCollector();
    await this.startAgent();
  }

  async startMosquitto(): Promise<void> {
    this.mosquitto!.start();
    await waitFor("mosquitto", async () => {
      if (!this.mosquitto!.running) throw new Error(`mosquitto exited\n${this.mosquitto!.tail()}`);
      return (await portOpen(this.mqttPort)) ? true : undefined;
    });
  }

  async startCollector(): Promise<void> {
    this.collector.start();
    await waitHealthy(this.collectorUrl, this.collector);
  }

  async startAgent(): Promise<void> {
    this.agent.start();
    await waitHealthy(this.agentUrl, this.agent);
  }

  logs(): string {
    return [this.agent.tail(), this.collector.tail(), this.mosquitto?.tail() ?? ""].join("\n");
  }

  async stop(): Promise<void> {
    for (const p of [this.agent, this.collector, this.mosquitto]) await p?.kill("SIGKILL");
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** 100,000 points: 10 gauges of 10,000 points, sent as 100 requests of 1,000 points. */
export const METRICS = 10;
export const PER_METRIC = 10_000;
export const REQUESTS = 100;
const PER_REQUEST = (METRICS * PER_METRIC) / REQUESTS;

export function metricId(m: number): string {
  return `e2e.gauge.${m}`;
}

/**
 * Pushes every point through the agent's write API, one request after another, pausing
 * `pauseMs` between requests. A request that fails (agent down) is retried until the agent
 * answers 200, as a real client would; `during(i)` runs before request i (disruptions).
 */
export async function pushAll(agentUrl: string, base: number, pauseMs: number, during: (i: number) => Promise<void> | void): Promise<{ retries: number }> {
  let retries = 0;
  for (let i = 0; i < REQUESTS; i++) {
    await during(i);
    const m = i % METRICS;
    const first = Math.floor(i / METRICS) * PER_REQUEST;
    const body = JSON.stringify([{ id: metricId(m), dataPoints: Array.from({ length: PER_REQUEST }, (_, k) => ({ timestamp: base + first + k, value: first + k })) }]);
    for (;;) {
      const res = await fetch(`${agentUrl}/svc/metrics/gauges/raw`, { method: "POST", body, headers: { "Content-Type": "application/json", "Svc-Tenant": "e2e" } }).catch(() => undefined);
      if (res?.status === 200) break;
      // 503: the agent is starting or stopping; 507: its disk is full. Both pass: retry.
      if (res && res.status !== 503 && res.status !== 507) throw new Error(`agent answered ${res.status}: ${await res.text()}`);
      retries++;
      await Bun.sleep(100);
    }
    if (pauseMs > 0) await Bun.sleep(pauseMs);
  }
  return { retries };
}

interface RawPoint {
  timestamp: number;
  value: number;
}

/** Every point of one metric as the collector's raw read returns it. */
export async function readRaw(collectorUrl: string, tenant: string, m: number, base: number, authorization?: string): Promise<RawPoint[]> {
  const q = `start=${base}&end=${base + PER_METRIC}&order=ASC&limit=${PER_METRIC * 2}`;
  const res = await fetch(`${collectorUrl}/svc/metrics/gauges/${encodeURIComponent(metricId(m))}/raw?${q}`, { headers: { "Svc-Tenant": tenant, ...(authorization ? { Authorization: authorization } : {}) } });
  if (res.status === 204) return [];
  if (res.status !== 200) throw new Error(`raw read answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as RawPoint[];
}

/** Waits until every metric has all its points at the collector, then returns them all. */
export async function awaitDelivery(sys: System, base: number, timeoutMs: number): Promise<RawPoint[][]> {
  let counts: number[] = [];
  try {
    return await waitFor(
      "all 100,000 points at the collector",
      async () => {
        const all = await Promise.all(Array.from({ length: METRICS }, (_, m) => readRaw(sys.collectorUrl, sys.o.tenant, m, base, sys.o.auth?.http)));
        counts = all.map((a) => a.length);
        return counts.every((n) => n >= PER_METRIC) ? all : undefined;
      },
      timeoutMs,
      500,
    );
  } catch (e) {
    throw new Error(`${(e as Error).message}; counts per metric ${counts.join(",")}\n${sys.logs()}`);
  }
}

/** Waits for every point at the collector and asserts each metric holds exactly the expected ones, once. */
export async function expectExactlyOnce(sys: System, base: number, timeoutMs: number): Promise<void> {
  const got = await awaitDelivery(sys, base, timeoutMs);
  const expected = expectedPoints(base);
  for (let m = 0; m < METRICS; m++) {
    const sorted = [...got[m]!].sort((a, b) => a.timestamp - b.timestamp);
    expect(sorted.length, `metric ${m}`).toBe(expected.length);
    expect(sorted, `metric ${m}`).toEqual(expected);
  }
}

/** The points each metric must hold: timestamps base..base+9999, value = offset. */
export function expectedPoints(base: number): RawPoint[] {
  return Array.from({ length: PER_METRIC }, (_, k) => ({ timestamp: base + k, value: k }));
}

/** Reads a value from a Prometheus text page. */
export async function scrape(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(text.split("\n").find((l) => l.startsWith(`${name} `))?.split(" ")[1]);
}
