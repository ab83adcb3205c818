/**
 * A real Prometheus server (Debian's `prometheus` package) as the reference for PromQL facts:
 * started on an ephemeral port with a data folder of its own, loaded through its remote-write
 * receiver with the same bodies the collector gets, and queried through the same HTTP API.
 *
 * Debian ships Prometheus 2.x, whose lookback and range windows include their left edge
 * (Prometheus 3, which Outpost follows, excludes it): tests compare at times where no sample
 * lies on an edge.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, waitFor } from "./ports.ts";
import { REMOTE_WRITE_HEADERS, remoteWriteBody, type SeriesIn } from "./remote-write.ts";

export interface ApiAnswer {
  status: "success" | "error";
  errorType?: string;
  error?: string;
  // biome-ignore lint/suspicious/noExplicitAny: compared as JSON
  data?: any;
}

export interface ReferencePrometheus {
  url: string;
  /** Remote-writes the series (in one request; samples of a series must be in time order). */
  write(series: SeriesIn[]): Promise<void>;
  /** GET of an API path (`/api/v1/query?…`), with the HTTP status. */
  get(path: string): Promise<{ status: number; body: ApiAnswer }>;
  stop(): Promise<void>;
}

export async function startReferencePrometheus(): Promise<ReferencePrometheus> {
  const dir = mkdtempSync(join(tmpdir(), "outpost-ref-prom-"));
  const config = join(dir, "prometheus.yml");
  writeFileSync(config, "global:\n  scrape_interval: 1m\n");
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const proc: ChildProcess = spawn(
    "prometheus",
    [`--config.file=${config}`, `--storage.tsdb.path=${join(dir, "data")}`, `--web.listen-address=127.0.0.1:${port}`, "--web.enable-remote-write-receiver", "--log.level=warn"],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  proc.stderr?.on("data", (d) => (stderr = (stderr + d).slice(-4000)));
  try {
    await waitFor("Prometheus ready", async () => ((await fetch(`${url}/-/ready`)).ok ? true : undefined), 30_000, 100);
  } catch (e) {
    proc.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`${(e as Error).message}\n${stderr}`);
  }
  return {
    url,
    async write(series) {
      const res = await fetch(`${url}/api/v1/write`, { method: "POST", headers: REMOTE_WRITE_HEADERS, body: remoteWriteBody(series) });
      if (!res.ok) throw new Error(`reference Prometheus refused the write: ${res.status} ${await res.text()}`);
    },
    async get(path) {
      const res = await fetch(url + path);
      return { status: res.status, body: (await res.json()) as ApiAnswer };
    },
    async stop() {
      if (proc.exitCode === null) {
        const exited = new Promise((r) => proc.once("exit", r));
        proc.kill("SIGTERM");
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * An API answer in a comparable form: series sorted by labels, values as numbers rounded to
 * 12 significant digits (the engines may sum in another order), errors as their type and text.
 */
export function comparable(a: ApiAnswer): unknown {
  // Prometheus 2 writes a range query's query errors without the parameter's name; 3 with it.
  if (a.status !== "success") return { errorType: a.errorType, error: a.error?.replace(/^invalid parameter "query": /, "") };
  const d = a.data as { resultType: string; result: unknown };
  const num = (v: string) => (/^[-+]?(Inf|NaN)$/.test(v) ? v : Number(Number(v).toPrecision(12)));
  const key = (m: Record<string, string>) => JSON.stringify(Object.entries(m).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)));
  switch (d.resultType) {
    case "vector":
      return { vector: (d.result as { metric: Record<string, string>; value: [number, string] }[]).map((r) => [key(r.metric), r.value[0], num(r.value[1])]).sort() };
    case "matrix":
      return {
        matrix: (d.result as { metric: Record<string, string>; values: [number, string][] }[])
          .map((r) => [key(r.metric), r.values.map(([t, v]) => [t, num(v)])] as const)
          .sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0)),
      };
    case "scalar":
    case "string": {
      const [t, v] = d.result as [number, string];
      return { [d.resultType]: [t, d.resultType === "scalar" ? num(v) : v] };
    }
  }
  return d;
}
