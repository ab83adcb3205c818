/** Helpers shared by the benchmarks: processes, ports, timing and printing. */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const ROOT = join(import.meta.dir, "..");
export const BUN = process.execPath;

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export function tempDir(prefix: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

export interface Proc {
  pid: number;
  kill(signal?: NodeJS.Signals): void;
  exited: Promise<number>;
}

/** More options for Outpost's collector from BENCH_COLLECTOR_ARGS (space-separated), or none. */
export function benchCollectorArgs(): string[] {
  return process.env.BENCH_COLLECTOR_ARGS?.split(" ").filter(Boolean) ?? [];
}

/**
 * Starts the collector as its own process and waits until it answers /health.
 * COLLECTOR_PROFILE=<dir> makes it write a CPU profile (markdown) there when it exits
 * (`profileDir`: this process's profile there, whatever the variable says);
 * COLLECTOR_BUN_ARGS gives the runtime more arguments (e.g. `--smol`, `--preload <file>`).
 * `fixedPort`: a port to listen on (a restarted collector keeps the one its clients know).
 */
export async function startCollectorProcess(args: string[], fixedPort?: number, profileDir = process.env.COLLECTOR_PROFILE): Promise<{ proc: Proc; url: string; port: number }> {
  const port = fixedPort ?? (await freePort());
  const runtimeArgs = [...(profileDir ? ["--cpu-prof-md", `--cpu-prof-dir=${profileDir}`] : []), ...(process.env.COLLECTOR_BUN_ARGS?.split(" ").filter(Boolean) ?? [])];
  const proc = Bun.spawn([BUN, ...runtimeArgs, join(ROOT, "collector/main.ts"), "--http-port", String(port), "--http-host", "127.0.0.1", "--log-level", "warn", ...args], {
    stdout: "inherit",
    stderr: "inherit",
  });
  const url = `http://127.0.0.1:${port}`;
  // Profiled, a collector replaying its log took over 30 s to be ready (a restart under remote write).
  await waitUp(`${url}/health`, profileDir ? 120_000 : 30_000, "collector");
  return { proc, url, port };
}

/**
 * Waits until `url` answers with a status below 500 (a server still starting answers 503, or not
 * at all); throws once `ms` have passed.
 */
export async function waitUp(url: string, ms = 30_000, what = url): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      if ((await fetch(url)).status < 500) return;
    } catch {}
    if (Date.now() > deadline) throw new Error(`${what} did not come up`);
    await Bun.sleep(50);
  }
}

/** Resident set size of a process in MB, from /proc. */
export function rssMB(pid: number): number {
  const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

/** Peak resident set size of a process in MB so far (VmHWM), from /proc. */
export function peakRssMB(pid: number): number {
  const m = /VmHWM:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

/** Bytes of the files under a folder (recursively), as a data folder's size on disk. */
export function folderBytes(path: string): number {
  let total = 0;
  for (const e of readdirSync(path, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) total += statSync(join(e.parentPath, e.name)).size;
  }
  return total;
}

/** CPU time (user+system) of a process in seconds, from /proc. */
export function cpuSeconds(pid: number): number {
  const c = procCounters(pid);
  return c.user + c.system;
}

/**
 * What a process (all its threads) has used so far, from /proc/PID/stat: CPU seconds in user
 * and kernel mode, and minor page faults (pages the kernel had to map in: on a hypervisor each
 * costs microseconds, and they are much less sensitive to the machine's load than wall time).
 */
export interface ProcCounters {
  user: number;
  system: number;
  minflt: number;
}

export function procCounters(pid: number): ProcCounters {
  // Fields after "comm)": state(3) … minflt(10) … utime(14) stime(15), here from index 0 = state.
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return { user: Number(f[11]) / 100, system: Number(f[12]) / 100, minflt: Number(f[7]) };
}

/** The counters used between two readings. */
export function countersSince(before: ProcCounters, after: ProcCounters): ProcCounters {
  return { user: after.user - before.user, system: after.system - before.system, minflt: after.minflt - before.minflt };
}

/** "user 1.23 s + sys 0.45 s, 12,345 minor faults" with per-million-points figures when `points` is given. */
export function countersText(c: ProcCounters, points?: number): string {
  const perM = points ? ` (${((c.user + c.system) / (points / 1e6)).toFixed(2)} CPU-s and ${fmt(c.minflt / (points / 1e6))} faults per M points)` : "";
  return `user ${c.user.toFixed(2)} s + sys ${c.system.toFixed(2)} s, ${fmt(c.minflt)} minor faults${perM}`;
}

/** The load averages of the machine now (1, 5, 15 minutes), printed beside every figure. */
export function loadAverage(): string {
  return readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
}

/** CPU-seconds of every process named `postgres` (server, backends, background workers), by pid. */
export function postgresCpuByPid(): Map<number, number> {
  const out = new Map<number, number>();
  for (const line of Bun.spawnSync(["pgrep", "-x", "postgres"]).stdout.toString().split("\n")) {
    const pid = Number(line);
    if (!pid) continue;
    try {
      out.set(pid, cpuSeconds(pid));
    } catch {} // the process ended meanwhile
  }
  return out;
}

/** CPU-seconds of every `postgres` process of this machine so far. */
export function postgresServerCpu(): number {
  let total = 0;
  for (const s of postgresCpuByPid().values()) total += s;
  return total;
}

/** CPU-seconds `postgres` processes spent since `before` (processes started since count whole). */
export function postgresCpuSince(before: Map<number, number>): number {
  let total = 0;
  for (const [pid, s] of postgresCpuByPid()) total += s - (before.get(pid) ?? 0);
  return total;
}

/** One JSON line a load generator (bench/_mqtt-load.ts) prints: per second, then once at the end. */
// biome-ignore lint/suspicious/noExplicitAny: the generator's own line format, read by each bench
export type LoadLine = Record<string, any>;

/**
 * Runs `generators` processes of bench/_mqtt-load.ts against `brokerUrl` (each `agents` agents,
 * `window` batches in flight, for `duration` ms) and hands every line they print to `onLine`
 * with the generator's index; resolves when all have exited.
 */
export async function runMqttLoad(
  o: { brokerUrl: string; generators: number; agents: number; window: number; duration: number },
  onLine: (line: LoadLine, generator: number) => void,
): Promise<void> {
  const gens = Array.from({ length: o.generators }, (_, g) =>
    Bun.spawn([BUN, join(ROOT, "bench/_mqtt-load.ts")], {
      env: { ...process.env, BROKER_URL: o.brokerUrl, GEN: `g${g}`, AGENTS: String(o.agents), WINDOW: String(o.window), DURATION: String(o.duration) },
      stdout: "pipe",
      stderr: "inherit",
    }),
  );
  await Promise.all(
    gens.map(async (p, g) => {
      const decoder = new TextDecoder();
      let buf = "";
      for await (const chunk of p.stdout as unknown as AsyncIterable<Uint8Array>) {
        buf += decoder.decode(chunk, { stream: true });
        let nl = buf.indexOf("\n");
        while (nl >= 0) {
          onLine(JSON.parse(buf.slice(0, nl)), g);
          buf = buf.slice(nl + 1);
          nl = buf.indexOf("\n");
        }
      }
      await p.exited;
    }),
  );
}

/** CPU-seconds of this process so far. */
export function ownCpu(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Runs `fn` `runs` times after `warmup` runs and returns p50/p99 in ms. */
export async function latency(fn: () => Promise<unknown>, runs: number, warmup = 5): Promise<{ p50: number; p99: number; runs: number }> {
  for (let i = 0; i < warmup; i++) await fn();
  const t: number[] = [];
  for (let i = 0; i < runs; i++) {
    const a = performance.now();
    await fn();
    t.push(performance.now() - a);
  }
  t.sort((a, b) => a - b);
  return { p50: percentile(t, 50), p99: percentile(t, 99), runs };
}

export const fmt = (n: number, digits = 0) => n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });

export function row(label: string, value: string): void {
  console.log(`${label.padEnd(58)} ${value}`);
}
