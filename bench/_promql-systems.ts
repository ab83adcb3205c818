/** A system the PromQL benches load by remote write and query: Outpost here, its peers in each bench. */
import { benchCollectorArgs, startCollectorProcess, tempDir } from "./_lib.ts";

export interface PromqlSystem {
  name: string;
  pid: number;
  writeUrl: string;
  queryUrl: string;
  /** A note printed with the system's results. */
  extra?: string;
  settle?(): Promise<void>;
  stop(): Promise<void>;
}

/** Waits until the URL answers below 500 (30 s at most). */
export async function waitUp(url: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      if ((await fetch(url)).status < 500) return;
    } catch {}
    if (Date.now() > deadline) throw new Error(`${url} did not come up`);
    await Bun.sleep(100);
  }
}

/** The collector with its defaults (synchronous=FULL: a write is answered once on disk), tenant `bench`. */
export async function outpostSystem(prefix: string): Promise<PromqlSystem> {
  const dir = tempDir(prefix);
  const { proc, url } = await startCollectorProcess(["--data-dir", dir.path, "--mqtt-port", "0", "--default-retention", "30", ...benchCollectorArgs()]);
  return {
    name: "Outpost",
    pid: proc.pid,
    writeUrl: `${url}/prometheus/bench/api/v1/write`,
    queryUrl: `${url}/prometheus/bench/api/v1/query_range`,
    async stop() {
      proc.kill("SIGTERM");
      await proc.exited;
      dir.remove();
    },
  };
}
