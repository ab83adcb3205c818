#!/usr/bin/env bun
/**
 * Load generator for bench/collector-mqtt.ts: AGENTS simulated agents on one MQTT connection
 * each, publishing CBOR data batches of BATCH points (the agent's own encoding) with up to
 * WINDOW unacknowledged batches each, for DURATION ms. Prints one JSON line per second
 * ({acked, latencies}) and a final line ({done, acked, perSeries}).
 */
import mqtt from "mqtt";
import type { MetricWrite } from "../src/metrics/model.ts";
import { createDecoder, createEncoder } from "../src/protocol/cbor.ts";
import { decodeAck, encodeChunk, encodeData } from "../src/protocol/messages.ts";
import { buildTopic } from "../src/protocol/topics.ts";

const env = process.env;
const URL_ = env.BROKER_URL!;
const AGENTS = Number(env.AGENTS ?? 5);
const SERIES = Number(env.SERIES_PER_AGENT ?? 200);
const BATCH = Number(env.BATCH ?? 5000);
const WINDOW = Number(env.WINDOW ?? 8);
const DURATION = Number(env.DURATION ?? 60_000);
const GEN = env.GEN ?? "g0";
const PREFIX = "svc";
const TENANT = "bench";

const enc = createEncoder();
const dec = createDecoder();
let acked = 0;
let latencies: number[] = [];
const stopAt = Date.now() + DURATION;
const perSeriesPoints = Math.floor(BATCH / SERIES);
// Points 100 ms apart from two hours ago: a 60 s run at full speed stays in the past (so it
// reads back and is not flagged as future) and inside the retention.
const SPACING = 100;
const BASE = Math.floor(Date.now() / 1000) * 1000 - 2 * 3_600_000;

function makeBatch(agent: number, round: number): MetricWrite[] {
  const t0 = BASE + round * perSeriesPoints * SPACING;
  const writes: MetricWrite[] = [];
  for (let s = 0; s < SERIES; s++) {
    const points = new Array(perSeriesPoints);
    for (let j = 0; j < perSeriesPoints; j++) points[j] = { timestamp: t0 + j * SPACING, value: s + ((round + j) % 17) };
    writes.push({ type: "gauge", id: `${GEN}.a${agent}.s${s}`, points });
  }
  return writes;
}

async function runAgent(agent: number): Promise<number> {
  const feed = `${GEN}-agent${agent}`;
  const client = await mqtt.connectAsync(URL_, { clientId: `${feed}-${process.pid}`, clean: true, reconnectPeriod: 0 });
  const ackTopic = buildTopic(PREFIX, { tenant: TENANT, feed, kind: "ack" });
  const dataTopic = buildTopic(PREFIX, { tenant: TENANT, feed, kind: "data" });
  await client.subscribeAsync(ackTopic, { qos: 1 });
  const session = Date.now();
  const inFlight = new Map<number, number>();
  let seq = 0;
  let rounds = 0;
  let wake: (() => void) | undefined;
  client.on("message", (_t, payload) => {
    const a = decodeAck(dec, payload);
    const now = performance.now();
    for (const s of a.seqs) {
      const sentAt = inFlight.get(s);
      if (sentAt === undefined) continue;
      inFlight.delete(s);
      acked += perSeriesPoints * SERIES;
      latencies.push(now - sentAt);
    }
    wake?.();
  });
  while (Date.now() < stopAt) {
    while (inFlight.size >= WINDOW) await new Promise<void>((r) => (wake = r));
    const chunk = encodeChunk(enc, makeBatch(agent, rounds++));
    seq++;
    const payload = encodeData(enc, { session, seq, sentAt: Date.now(), replay: false, chunks: [chunk] });
    inFlight.set(seq, performance.now());
    client.publish(dataTopic, Buffer.from(payload), { qos: 1 });
  }
  const deadline = Date.now() + 30_000;
  while (inFlight.size > 0 && Date.now() < deadline) {
    await new Promise<void>((r) => {
      wake = r;
      setTimeout(r, 100);
    });
  }
  await client.endAsync();
  return rounds;
}

const timer = setInterval(() => {
  process.stdout.write(`${JSON.stringify({ acked, latencies })}\n`);
  acked = 0;
  latencies = [];
}, 1000);
const rounds = await Promise.all(Array.from({ length: AGENTS }, (_, a) => runAgent(a)));
clearInterval(timer);
process.stdout.write(`${JSON.stringify({ acked, latencies })}\n`);
process.stdout.write(`${JSON.stringify({ done: true, gen: GEN, rounds, perSeriesPoints })}\n`);
