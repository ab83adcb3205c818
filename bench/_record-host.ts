#!/usr/bin/env bun
/**
 * Records this machine's host metrics with the agent's own reader (default selection, real
 * procfs and statfs), the way the agent samples them: every INTERVAL, timestamped with the
 * wall clock at the tick. Writes bench/fixtures/host-recording.json.gz, which bench/codec.ts
 * measures the point codec on.
 * Usage: bun bench/_record-host.ts [minutes=60] [intervalSeconds=10]
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { hostMetricsConfig, hostReaderFor } from "../agent/inputs/host/options.ts";
import type { HostRecording } from "./_host-data.ts";

const minutes = Number(process.argv[2] ?? 60);
const intervalMs = Number(process.argv[3] ?? 10) * 1000;
const out = join(import.meta.dir, "fixtures", "host-recording.json.gz");
const reader = hostReaderFor("rec", hostMetricsConfig({}), (m) => console.error(m));

const series = new Map<string, { type: string; ts: number[]; values: number[] }>();
const samples = Math.max(1, Math.round((minutes * 60_000) / intervalMs));

function save(): void {
  const rec: HostRecording = {
    intervalMs,
    series: [...series].map(([id, s]) => ({ id: id.slice("rec:".length), type: s.type, ts: s.ts, values: s.values })),
  };
  mkdirSync(join(import.meta.dir, "fixtures"), { recursive: true });
  writeFileSync(out, Bun.gzipSync(Buffer.from(JSON.stringify(rec))));
}

let taken = 0;
const timer = setInterval(() => {
  const s = reader.sample(Date.now());
  for (const w of s.writes) {
    let e = series.get(w.id);
    if (!e) series.set(w.id, (e = { type: w.type, ts: [], values: [] }));
    for (const p of w.points) {
      e.ts.push(p.timestamp);
      e.values.push(p.value as number);
    }
  }
  taken++;
  // Saved as it goes, so an interrupted recording is still usable.
  if (taken % 6 === 0 || taken === samples) save();
  if (taken % 30 === 0) console.error(`recorded ${taken}/${samples} samples, ${series.size} series`);
  if (taken >= samples) clearInterval(timer);
}, intervalMs);
