/**
 * Data-path figures with real processes (bun bench/data-path.ts [points]): how fast an agent
 * buffers, how fast a backlog drains into the collector, live end-to-end throughput, and the
 * resident memory of both programs. Prints figures; asserts nothing.
 * Usage: bun bench/data-path.ts [points=500000] [replay-rate=0 (unlimited)]
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUN, Proc, waitHealthy } from "../test/e2e/harness.ts";
import { freePort } from "../test/helpers/ports.ts";

const TOTAL = Number(process.argv[2] ?? 500_000);
const PER_REQUEST = 5000;
const CLIENTS = 4;
const REPLAY_RATE = Number(process.argv[3] ?? 0);

function rssMiB(pid: number | undefined): number {
  if (!pid) return 0;
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : 0;
}

/** Samples a process's RSS every 100 ms; returns the peak seen since the last reset. */
function rssPeak(proc: Proc) {
  let peak = 0;
  const t = setInterval(() => {
    if (proc.running) peak = Math.max(peak, rssMiB(proc.pid));
  }, 100);
  return { take: () => [peak, (peak = 0)][0]!, stop: () => clearInterval(t) };
}

async function scrape(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(text.split("\n").find((l) => l.startsWith(`${name} `))?.split(" ")[1]);
}

async function push(agentUrl: string, base: number, total: number): Promise<number> {
  const started = performance.now();
  let next = 0;
  const worker = async () => {
    for (;;) {
      const at = next;
      next += PER_REQUEST;
      if (at >= total) return;
      const metric = `bench.${(at / PER_REQUEST) % 20}`;
      const body = JSON.stringify([{ id: metric, dataPoints: Array.from({ length: PER_REQUEST }, (_, k) => ({ timestamp: base + at + k, value: k })) }]);
      const res = await fetch(`${agentUrl}/svc/metrics/gauges/raw`, { method: "POST", body, headers: { "Content-Type": "application/json" } });
      if (res.status !== 200) throw new Error(`agent answered ${res.status}`);
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, worker));
  return (performance.now() - started) / 1000;
}

async function until(what: string, probe: () => Promise<boolean>, progress: () => Promise<string>): Promise<number> {
  const started = performance.now();
  let lastLog = started;
  while (!(await probe())) {
    if (performance.now() - lastLog > 5000) {
      lastLog = performance.now();
      process.stdout.write(`  … ${what}: ${await progress()}\n`);
    }
    await Bun.sleep(100);
  }
  return (performance.now() - started) / 1000;
}

const dir = mkdtempSync(join(tmpdir(), "outpost-bench-"));
const httpPort = await freePort();
const mqttPort = await freePort();
const agentPort = await freePort();
const collectorUrl = `http://127.0.0.1:${httpPort}`;
const agentUrl = `http://127.0.0.1:${agentPort}`;
const collector = new Proc("collector", [BUN, "collector/main.ts", "--http-port", String(httpPort), "--http-host", "127.0.0.1", "--mqtt-port", String(mqttPort), "--mqtt-host", "127.0.0.1", "--data-dir", join(dir, "c"), "--log-level", "warn"], dir);
const agent = new Proc(
  "agent",
  [BUN, "agent/main.ts", "--broker", `mqtt://127.0.0.1:${mqttPort}`, "--tenant", "bench", "--feed", "f", "--data-dir", join(dir, "a"), "--listen", `127.0.0.1:${agentPort}`, "--replay-rate", String(REPLAY_RATE), "--reconnect-min", "100ms", "--reconnect-max", "500ms", "--log-level", "warn"],
  dir,
);

try {
  process.stdout.write(`data-path bench: ${TOTAL} points, ${CLIENTS} clients × ${PER_REQUEST} points per request, replay rate ${REPLAY_RATE || "unlimited"}\n`);
  agent.start();
  await waitHealthy(agentUrl, agent);
  await Bun.sleep(3000);
  process.stdout.write(`agent idle RSS (no broker): ${rssMiB(agent.pid).toFixed(1)} MiB\n`);

  // 1. Buffering only: the collector (and its broker) is down.
  const agentRss = rssPeak(agent);
  const base = Date.now() - 3_600_000;
  const bufferS = await push(agentUrl, base, TOTAL);
  process.stdout.write(`agent buffering (synchronous=FULL): ${(TOTAL / bufferS).toFixed(0)} points/s (${bufferS.toFixed(1)} s); peak RSS ${agentRss.take().toFixed(1)} MiB; buffer file ${((await scrape(agentUrl, "outpost_agent_buffer_file_bytes")) / 1024 ** 2).toFixed(1)} MiB\n`);

  // 2. Backlog drain, replay unlimited, from a freshly started agent: the collector comes up.
  agentRss.stop();
  await agent.kill("SIGTERM");
  agent.start();
  await waitHealthy(agentUrl, agent);
  await Bun.sleep(2000);
  process.stdout.write(`agent restarted with ${await scrape(agentUrl, "outpost_agent_buffer_points")} points buffered: RSS ${rssMiB(agent.pid).toFixed(1)} MiB\n`);
  if (REPLAY_RATE > 0) {
    // Only points buffered longer than max(10 s, 2 × interval) ago are backlog (rate-limited).
    process.stdout.write("  waiting 21 s so the buffered points count as backlog\n");
    await Bun.sleep(21_000);
  }
  const replayRss = rssPeak(agent);
  collector.start();
  const colRss = rssPeak(collector);
  await waitHealthy(collectorUrl, collector);
  process.stdout.write(`collector idle RSS: ${rssMiB(collector.pid).toFixed(1)} MiB\n`);
  const drainS = await until(
    "draining",
    async () => (await scrape(agentUrl, "outpost_agent_points_acked_total")) >= TOTAL,
    async () => `${await scrape(agentUrl, "outpost_agent_points_acked_total")} acked`,
  );
  process.stdout.write(`backlog drain through the embedded broker into the store: ${(TOTAL / drainS).toFixed(0)} points/s (${drainS.toFixed(1)} s); peak RSS agent ${replayRss.take().toFixed(1)} MiB, collector ${colRss.take().toFixed(1)} MiB\n`);

  // 3. Live: collector up, points acked as they arrive.
  const acked0 = await scrape(agentUrl, "outpost_agent_points_acked_total");
  const liveStart = performance.now();
  await push(agentUrl, base + TOTAL, TOTAL);
  await until(
    "live",
    async () => (await scrape(agentUrl, "outpost_agent_points_acked_total")) >= acked0 + TOTAL,
    async () => `${(await scrape(agentUrl, "outpost_agent_points_acked_total")) - acked0} acked`,
  );
  const liveS = (performance.now() - liveStart) / 1000;
  process.stdout.write(`live end to end (HTTP in → buffer → MQTT → store → ack): ${(TOTAL / liveS).toFixed(0)} points/s (${liveS.toFixed(1)} s); peak RSS agent ${replayRss.take().toFixed(1)} MiB, collector ${colRss.take().toFixed(1)} MiB\n`);
  await Bun.sleep(3000);
  process.stdout.write(`after load RSS: agent ${rssMiB(agent.pid).toFixed(1)} MiB, collector ${rssMiB(collector.pid).toFixed(1)} MiB\n`);
  replayRss.stop();
  colRss.stop();
} finally {
  await agent.kill("SIGTERM");
  await collector.kill("SIGTERM");
  rmSync(dir, { recursive: true, force: true });
}
