/**
 * The systems the remote-write benches send to, each stopped and started again on the same port
 * and data (a backlog arrives at a restarted server): Outpost's collector with its defaults
 * (synchronous=FULL: a request is answered once on disk), tenant `bench`, and Debian's
 * VictoriaMetrics.
 */
import { existsSync } from "node:fs";
import { benchCollectorArgs, freePort, startCollectorProcess, tempDir, waitUp } from "./_lib.ts";

export interface RestartableSystem {
  name: string;
  /** Where remote write is sent. */
  writeUrl: string;
  /** The system's own metrics, in the text format. */
  metricsUrl: string;
  /** Starts (or starts again, on the same port and data) the system; returns its pid. */
  start(): Promise<number>;
  stop(): Promise<void>;
  /** Deletes its data (after the last stop). */
  remove(): void;
}

type Proc = { pid: number; kill(s?: NodeJS.Signals): void; exited: Promise<number> };

/**
 * Outpost's collector. COLLECTOR_PROFILE=<dir> profiles every start, COLLECTOR_PROFILE_RESTART=<dir>
 * the starts after the first (the one that takes a backlog).
 */
export async function restartableOutpost(prefix: string): Promise<RestartableSystem> {
  const dir = tempDir(prefix);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let proc: Proc | undefined;
  let starts = 0;
  return {
    name: "Outpost",
    writeUrl: `${url}/prometheus/bench/api/v1/write`,
    metricsUrl: `${url}/metrics`,
    async start() {
      const profile = starts++ > 0 ? (process.env.COLLECTOR_PROFILE_RESTART ?? process.env.COLLECTOR_PROFILE) : process.env.COLLECTOR_PROFILE;
      proc = (await startCollectorProcess(["--data-dir", dir.path, "--mqtt-port", "0", ...benchCollectorArgs()], port, profile)).proc;
      return proc.pid;
    },
    async stop() {
      proc?.kill("SIGTERM");
      await proc?.exited;
    },
    remove: () => dir.remove(),
  };
}

/** Whether Debian's victoria-metrics is installed. */
export function victoriaInstalled(): boolean {
  return ["/usr/bin", "/usr/local/bin"].some((d) => existsSync(`${d}/victoria-metrics`));
}

/** VictoriaMetrics, single-node, a year's retention, ready once /health answers 200. */
export async function restartableVictoria(prefix: string): Promise<RestartableSystem> {
  const dir = tempDir(prefix);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let proc: Proc | undefined;
  return {
    name: "VictoriaMetrics",
    writeUrl: `${url}/api/v1/write`,
    metricsUrl: `${url}/metrics`,
    async start() {
      proc = Bun.spawn(["victoria-metrics", `-storageDataPath=${dir.path}`, `-httpListenAddr=127.0.0.1:${port}`, "-retentionPeriod=1y", "-loggerLevel=ERROR"], {
        stdout: "ignore",
        stderr: "inherit",
      });
      await waitUp(`${url}/health`, 30_000, "victoria-metrics");
      return proc.pid;
    },
    async stop() {
      proc?.kill("SIGTERM");
      await proc?.exited;
    },
    remove: () => dir.remove(),
  };
}
