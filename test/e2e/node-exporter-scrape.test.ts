/**
 * Debian's node_exporter (`prometheus-node-exporter`) scraped by the agent and, side by side,
 * by a real Prometheus (Debian's `prometheus`): `rate(node_cpu_seconds_total[1m])` through the
 * collector's Prometheus API agrees with Prometheus' own answer within what the two scrapers'
 * different scrape times allow. Both programs are started by the test on ephemeral ports.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { freePort, waitFor } from "../helpers/ports.ts";
import { type InputsSystem, startInputsSystem } from "../agent/inputs/system.ts";

const NODE_EXPORTER = "prometheus-node-exporter";
const INTERVAL_S = 2;
let dir: string;
let exporter: ChildProcess;
let prometheus: ChildProcess;
let promUrl: string;
let exporterAddress: string;
let sys: InputsSystem;

async function stopProcess(p: ChildProcess | undefined): Promise<void> {
  if (!p || p.exitCode !== null || p.signalCode !== null) return;
  const exited = new Promise((r) => p.once("exit", r));
  p.kill("SIGTERM");
  await exited;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "outpost-node-exporter-"));
  const exporterPort = await freePort();
  exporterAddress = `127.0.0.1:${exporterPort}`;
  // The CPU collector (what the comparison reads) and a few others, as a host would expose them.
  exporter = spawn(NODE_EXPORTER, [`--web.listen-address=${exporterAddress}`, "--collector.disable-defaults", "--collector.cpu", "--collector.meminfo", "--collector.loadavg", "--collector.stat"], { stdio: "ignore" });
  await waitFor("node_exporter", async () => ((await fetch(`http://${exporterAddress}/metrics`).catch(() => undefined))?.status === 200 ? true : undefined), 20_000, 100);
  const promPort = await freePort();
  promUrl = `http://127.0.0.1:${promPort}`;
  writeFileSync(
    join(dir, "prometheus.yml"),
    `global:\n  scrape_interval: ${INTERVAL_S}s\nscrape_configs:\n  - job_name: node\n    static_configs:\n      - targets: ["${exporterAddress}"]\n`,
  );
  prometheus = spawn("prometheus", [`--config.file=${join(dir, "prometheus.yml")}`, `--storage.tsdb.path=${join(dir, "tsdb")}`, `--web.listen-address=127.0.0.1:${promPort}`, "--log.level=warn"], { stdio: "ignore" });
  sys = await startInputsSystem({ inputs: { prometheus: [{ job: "node", targets: [exporterAddress], interval: `${INTERVAL_S}s`, timeout: "1s" }] } });
}, 60_000);

afterAll(async () => {
  await sys?.close();
  await stopProcess(prometheus);
  await stopProcess(exporter);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

type Vector = { metric: Record<string, string>; value: [number, string] }[];

async function promQuery(q: string, time: number): Promise<Vector> {
  const r = await fetch(`${promUrl}/api/v1/query?${new URLSearchParams({ query: q, time: String(time / 1000) })}`);
  const b = (await r.json()) as { status: string; data: { result: Vector } };
  if (b.status !== "success") throw new Error(JSON.stringify(b));
  return b.data.result;
}

const byCpuMode = (v: Vector) => new Map(v.map((s) => [`${s.metric.cpu}/${s.metric.mode}`, Number(s.value[1])]));

describe("node_exporter scraped by the agent and by Prometheus", () => {
  test("rate(node_cpu_seconds_total[1m]) agrees with Prometheus'", async () => {
    // Enough samples in both for a one-minute rate over about 40 s of data.
    await waitFor(
      "20 scrapes in both",
      async () => {
        const t = Date.now();
        const [a, b] = await Promise.all([promQuery("count_over_time(node_cpu_seconds_total[1m])", t), sys.query("count_over_time(node_cpu_seconds_total[1m])", t)]);
        return a.length > 0 && b.length > 0 && Number(a[0]!.value[1]) >= 20 && Number(b[0]!.value[1]) >= 20 ? true : undefined;
      },
      90_000,
      1000,
    );
    const t = Date.now() - 1000;
    const [theirs, ours] = await Promise.all([promQuery("rate(node_cpu_seconds_total[1m])", t), sys.query("rate(node_cpu_seconds_total[1m])", t)]);
    expect(ours.length).toBe(theirs.length);
    expect(ours[0]!.metric).toMatchObject({ job: "node", instance: exporterAddress, feed: sys.feed });
    const a = byCpuMode(theirs);
    const b = byCpuMode(ours);
    expect([...b.keys()].sort()).toEqual([...a.keys()].sort());
    // Scrapes at other moments than Prometheus' see the counters up to one interval apart:
    // over a ~60 s window that moves a rate by at most about a core-second per interval.
    const tolerance = (2 * INTERVAL_S) / 40;
    for (const [k, v] of a) expect(Math.abs(b.get(k)! - v), `${k}: ours ${b.get(k)}, Prometheus ${v}`).toBeLessThanOrEqual(tolerance);
    // And per CPU, all modes together: the same aggregation answers alike.
    const q = "sum by (cpu) (rate(node_cpu_seconds_total[1m]))";
    const [sumTheirs, sumOurs] = await Promise.all([promQuery(q, t), sys.query(q, t)]);
    const ourSums = new Map(sumOurs.map((s) => [s.metric.cpu, Number(s.value[1])]));
    expect(ourSums.size).toBe(sumTheirs.length);
    for (const s of sumTheirs) expect(Math.abs(ourSums.get(s.metric.cpu!)! - Number(s.value[1])), `cpu ${s.metric.cpu}`).toBeLessThanOrEqual(2 * tolerance);
    // The per-target series agree on the target's health too.
    expect((await sys.query(`up{job="node"}`))[0]!.value[1]).toBe("1");
    expect((await promQuery(`up{job="node"}`, t))[0]!.value[1]).toBe("1");
  }, 150_000);
});
