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
