#!/usr/bin/env bun
/**
 * Bytes per point of the collector's metrics.db, written through the real store (group
 * commit, ingest log, heads, flush into compressed chunks, clean close), for the peers
 * workload and for host metrics. Sizes do not depend on the machine; the ingest rate printed
 * beside them is in process (no HTTP) and does.
 * Printed per data set: the file after a clean stop; the pages in use (the file without the
 * free pages the ingest log leaves, which later writes reuse); the chunk blocks alone.
 * Usage: bun bench/collector-disk.ts
 */
import { Database } from "bun:sqlite";
import { statSync } from "node:fs";
import { join } from "node:path";
import { openSqliteMetricsStore } from "../collector/store/metrics/sqlite/store.ts";
import type { MetricWrite } from "../src/metrics/model.ts";
import { aligned, extrapolate, peersSeries, recordedHost, type Series, simulatedHost } from "./_host-data.ts";
import { fmt, tempDir } from "./_lib.ts";

/** Batches as agents and the peers client send them: every series' next points, in time order, `perBatch` points a batch. */
function* batches(sets: Series[], perSeries: number): Generator<MetricWrite[]> {
  const n = Math.max(...sets.map((s) => s.ts.length));
  for (let j = 0; j < n; j += perSeries) {
    const writes: MetricWrite[] = [];
    for (const s of sets) {
      const points = [];
      for (let i = j; i < Math.min(j + perSeries, s.ts.length); i++) points.push({ timestamp: s.ts[i]!, value: s.values[i]! });
      if (points.length) writes.push({ type: "gauge", id: s.id, points });
    }
    yield writes;
  }
}

async function measure(label: string, sets: Series[], perSeries: number): Promise<void> {
  const dir = tempDir("collector-disk-");
  try {
    const store = await openSqliteMetricsStore({ dataDir: dir.path, synchronous: "NORMAL", maintenanceIntervalMs: 3_600_000, sealOnClose: true });
    let points = 0;
    const started = performance.now();
    for (const writes of batches(sets, perSeries)) {
      await store.write("bench", writes);
      for (const w of writes) points += w.points.length;
      store.flushDue(); // what the background task does every second
    }
    const secs = (performance.now() - started) / 1000;
    await store.close(); // seals every head (sealOnClose) and checkpoints the WAL
    const file = join(dir.path, "metrics.db");
    const db = new Database(file, { readonly: true });
    const q = (sql: string) => Object.values(db.query(sql).get() as Record<string, number>)[0]!;
    const inUse = (q("PRAGMA page_count") - q("PRAGMA freelist_count")) * q("PRAGMA page_size");
    const blocks = q("SELECT sum(length(body)) FROM chunks");
    const chunks = q("SELECT count(*) FROM chunks");
    db.close();
    const size = statSync(file).size;
    console.log(
      `| ${label} | ${fmt(points)} | ${fmt(chunks)} | ${(size / points).toFixed(2)} | ${(inUse / points).toFixed(2)} | ${(blocks / points).toFixed(2)} | ${fmt(points / secs / 1e6, 2)} M |`,
    );
  } finally {
    dir.remove();
  }
}

/** `hosts` simulated hosts, each its own series ids and seed. */
function hosts(count: number, f: (seed: number) => Series[]): Series[] {
  const out: Series[] = [];
  for (let h = 0; h < count; h++) for (const s of f(h + 1)) out.push({ ...s, id: `h${h}:${s.id}` });
  return out;
}

console.log("| data set | points | chunks | file B/pt | in use B/pt | blocks B/pt | ingest (in process) |");
console.log("|---|--:|--:|--:|--:|--:|--:|");
const peers = (points: number) => Array.from({ length: 1000 }, (_, s) => ({ ...peersSeries(s, points), id: `s${s}` }));
// The peers workload: batches of 5,000 points = 5 points of each of 1,000 series.
await measure("peers, 1,000 series × 1,000 points", peers(1000), 5);
await measure("peers, 1,000 series × 10,000 points", peers(10_000), 5);
// Host metrics: one sample of every series per batch, as an agent sends them live.
const rec24h = () => extrapolate(recordedHost(), 8640);
await measure("host-sim, 5 hosts × 95 series × 1 day at 10 s (agent clock)", hosts(5, (seed) => simulatedHost(8640, seed)), 1);
await measure("host-sim-grid (same, stamped on the 10 s grid)", hosts(5, (seed) => simulatedHost(8640, seed).map(aligned)), 1);
await measure("host-rec-24h, recorded here, stretched to 1 day (agent clock)", hosts(5, () => rec24h()), 1);
await measure("host-rec-24h-grid", hosts(5, () => rec24h().map(aligned)), 1);
// As the agent sends them since it stamps on the grid and rounds percentages to 0.01.
const roundedPercents = (set: Series[]) => set.map((s) => (s.id.includes("percent") ? { ...s, values: s.values.map((v) => Math.round(v * 100) / 100) } : s));
await measure("host-sim as this agent sends it (grid, percentages to 0.01)", hosts(5, (seed) => roundedPercents(simulatedHost(8640, seed).map(aligned))), 1);
await measure("host-rec-24h as this agent sends it", hosts(5, () => roundedPercents(rec24h().map(aligned))), 1);
