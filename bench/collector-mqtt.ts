#!/usr/bin/env bun
/**
 * Collector ingest over MQTT: GENERATORS processes of simulated agents publish CBOR data
 * batches (5,000 points) to the collector's embedded broker for DURATION ms. A batch counts
 * when the collector acks it, which it does only after the commit, when the points are
 * readable; the ack latency is therefore the time until queryable. Prints the sustained rate
 * per second, p50/p99 time to queryable, and the collector's RSS and CPU.
 * Env: DURATION (ms, default 60000), GENERATORS (2), AGENTS (per generator, 5), WINDOW (8),
 * BENCH_COLLECTOR_ARGS (options passed to the collector),
 * BROKER=mosquitto to use a private Mosquitto (on an ephemeral port) instead of the embedded broker.
 */
import { startMosquitto } from "../test/helpers/mosquitto.ts";
import { benchCollectorArgs, countersSince, countersText, fmt, freePort, loadAverage, percentile, procCounters, row, rssMB, runMqttLoad, startCollectorProcess, tempDir } from "./_lib.ts";

const DURATION = Number(process.env.DURATION ?? 60_000);
const GENERATORS = Number(process.env.GENERATORS ?? 2);
const AGENTS = Number(process.env.AGENTS ?? 5);
const WINDOW = Number(process.env.WINDOW ?? 8);
const useMosquitto = process.env.BROKER === "mosquitto";

const dir = tempDir("outpost-bench-mqtt-");
const mqttPort = await freePort();
const mosquitto = useMosquitto ? await startMosquitto() : undefined;
const brokerArgs = mosquitto ? ["--mqtt-port", "0", "--broker", mosquitto.url] : ["--mqtt-port", String(mqttPort), "--mqtt-host", "127.0.0.1"];
const { proc, url } = await startCollectorProcess(["--data-dir", dir.path, ...brokerArgs, ...benchCollectorArgs()]);
const brokerUrl = mosquitto?.url ?? `mqtt://127.0.0.1:${mqttPort}`;

console.log(
  `collector ingest over MQTT (${useMosquitto ? "Mosquitto" : "embedded broker"}), ${GENERATORS} generator processes × ${AGENTS} agents, batches of 5,000 points, window ${WINDOW}, ${DURATION / 1000} s`,
);
const counters0 = procCounters(proc.pid);
const t0 = performance.now();
const perSecond: number[] = [];
const lat: number[] = [];
let peakRss = 0;
let perSeriesPoints = 0;
const roundsByGen = new Map<string, number[]>();

const secondOf: number[] = [];
await runMqttLoad({ brokerUrl, generators: GENERATORS, agents: AGENTS, window: WINDOW, duration: DURATION }, (line, g) => {
  if (line.done) {
    perSeriesPoints = line.perSeriesPoints;
    roundsByGen.set(line.gen, line.rounds);
    return;
  }
  const second = secondOf[g] ?? 0;
  secondOf[g] = second + 1;
  perSecond[second] = (perSecond[second] ?? 0) + line.acked;
  for (const l of line.latencies) lat.push(l);
  peakRss = Math.max(peakRss, rssMB(proc.pid));
});
const secs = (performance.now() - t0) / 1000;
const counters = countersSince(counters0, procCounters(proc.pid));
const cpu = counters.user + counters.system;
const total = perSecond.reduce((a, b) => a + b, 0);
lat.sort((a, b) => a - b);
// Steady state: leave out the first and last seconds (ramp-up and drain).
const steady = perSecond.slice(2, -2);
const steadyRate = steady.length ? steady.reduce((a, b) => a + b, 0) / steady.length : total / secs;

// Check: one series of the last agent reads back every point acked for it.
const expected = (roundsByGen.get(`g${GENERATORS - 1}`)?.[AGENTS - 1] ?? 0) * perSeriesPoints;
const res = await fetch(`${url}/svc/metrics/gauges/g${GENERATORS - 1}.a${AGENTS - 1}.s0/raw?start=1&end=${Date.now() + 86_400_000}&limit=0`, { headers: { "Svc-Tenant": "bench" } });
const readBack = res.status === 204 ? 0 : ((await res.json()) as unknown[]).length;

row("points acked (committed, readable)", `${fmt(total)} in ${secs.toFixed(1)} s`);
row("sustained rate (seconds 3 to n−2)", `${fmt(steadyRate)} points/s`);
row("slowest / fastest second", `${fmt(Math.min(...steady))} / ${fmt(Math.max(...steady))} points/s`);
row("time to queryable per batch (publish → ack after commit)", `p50 ${percentile(lat, 50).toFixed(0)} ms  p99 ${percentile(lat, 99).toFixed(0)} ms`);
row("collector CPU", `${((cpu / secs) * 100).toFixed(0)} % of one core`);
row("collector peak RSS", `${fmt(peakRss, 1)} MB`);
row("collector CPU split and minor page faults", countersText(counters, total));
row("load average at the end", loadAverage());
row("read-back check (one series, newest batch included)", readBack === expected ? `ok (${readBack} points)` : `MISMATCH ${readBack}/${expected}`);

proc.kill("SIGTERM");
await proc.exited;
dir.remove();
await mosquitto?.stop();
