#!/usr/bin/env bun
/**
 * Scale-out: the same MQTT load (bench/_mqtt-load.ts: GENERATORS processes × AGENTS agents,
 * CBOR batches of 5,000 points, WINDOW in flight, DURATION ms) against
 *   1. one collector on SQLite with its embedded broker,
 *   2. one collector on PostgreSQL behind a private Mosquitto,
 *   3. two collectors on the same PostgreSQL database and Mosquitto (MQTT 5 shared subscription).
 * A batch counts when acked, i.e. committed and readable. Prints points/s, CPU-seconds per
 * million points of the collector(s) and of the PostgreSQL server (every `postgres` process,
 * from /proc, before/after; a backend that exits in between is not counted, the collectors'
 * pools keep theirs open), and the p50 of a raw read of one series through each collector.
 * PostgreSQL: a database of its own per configuration on TEST_POSTGRES_URL's server (default
 * local, trust auth), created and dropped here. Env: DURATION (ms, default 20000), GENERATORS
 * (2), AGENTS (per generator, 5), WINDOW (8).
 */
import { SQL } from "bun";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startMosquitto } from "../test/helpers/mosquitto.ts";
import { cpuSeconds, fmt, freePort, latency, type Proc, postgresCpuByPid, postgresCpuSince, runMqttLoad, startCollectorProcess, tempDir } from "./_lib.ts";

const DURATION = Number(process.env.DURATION ?? 20_000);
const GENERATORS = Number(process.env.GENERATORS ?? 2);
const AGENTS = Number(process.env.AGENTS ?? 5);
const WINDOW = Number(process.env.WINDOW ?? 8);
const ADMIN_URL = process.env.TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

/** Runs the load against `brokerUrl`; resolves with the points acked and the seconds it took. */
async function load(brokerUrl: string): Promise<{ points: number; secs: number; p50Ack: number }> {
  const t0 = performance.now();
  let points = 0;
  const lat: number[] = [];
  await runMqttLoad({ brokerUrl, generators: GENERATORS, agents: AGENTS, window: WINDOW, duration: DURATION }, (line) => {
    if (line.done) return;
    points += line.acked;
    for (const l of line.latencies) lat.push(l);
  });
  lat.sort((a, b) => a - b);
  return { points, secs: (performance.now() - t0) / 1000, p50Ack: lat[Math.floor(lat.length / 2)] ?? Number.NaN };
}

interface Result {
  label: string;
  points: number;
  secs: number;
  p50Ack: number;
  collectorCpu: number;
  pgCpu: number | undefined;
  readP50: number[];
  readPoints: number;
}

async function measure(label: string, brokerUrl: string, collectors: { proc: Proc; url: string }[], pg: boolean): Promise<Result> {
  const pgBefore = postgresCpuByPid();
  const cpu0 = collectors.map((c) => cpuSeconds(c.proc.pid));
  const r = await load(brokerUrl);
  const collectorCpu = collectors.reduce((sum, c, i) => sum + cpuSeconds(c.proc.pid) - cpu0[i]!, 0);
  const pgCpu = pg ? postgresCpuSince(pgBefore) : undefined;
  // Raw read of one series (all its points) through each collector.
  const path = `/svc/metrics/gauges/g0.a0.s0/raw?start=1&end=${Date.now() + 86_400_000}&limit=0`;
  const headers = { "Svc-Tenant": "bench" };
  const first = await fetch(collectors[0]!.url + path, { headers });
  const readPoints = first.status === 204 ? 0 : ((await first.json()) as unknown[]).length;
  const readP50: number[] = [];
  for (const c of collectors) readP50.push((await latency(async () => (await fetch(c.url + path, { headers })).arrayBuffer(), 50)).p50);
  return { label, ...r, collectorCpu, pgCpu, readP50, readPoints };
}

/** Whether the collectors' metrics tables are in the database (they are on PostgreSQL). */
async function checkDatabase(url: string): Promise<boolean> {
  const sql = new SQL(url, { max: 1 });
  try {
    const [r] = await sql.unsafe("SELECT to_regclass('metric_series') IS NOT NULL AS ok");
    return Boolean(r.ok);
  } finally {
    await sql.close();
  }
}

async function withDatabase<T>(fn: (url: string) => Promise<T>): Promise<T> {
  const admin = new SQL(ADMIN_URL, { max: 1 });
  const name = `outpost_bench_${crypto.randomUUID().replace(/-/g, "").slice(0, 12)}`;
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const u = new URL(ADMIN_URL);
  u.pathname = `/${name}`;
  try {
    return await fn(u.toString());
  } finally {
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.close();
  }
}

/** Starts `n` collectors on `databaseUrl` behind a private Mosquitto, runs the load, stops them. */
async function onPostgres(label: string, n: number): Promise<Result> {
  return withDatabase(async (databaseUrl) => {
    const mosquitto = await startMosquitto();
    const dirs = Array.from({ length: n }, () => tempDir("outpost-bench-scale-"));
    // Passed in a file so that no URL shows in the process list.
    const urlFile = join(dirs[0]!.path, "database-url");
    writeFileSync(urlFile, `${databaseUrl}\n`, { mode: 0o600 });
    const collectors: { proc: Proc; url: string }[] = [];
    try {
      // One after the other: the first runs the migrations.
      // Each its own --node-name: they share this host, and their self-metrics must not collide.
      for (const [i, d] of dirs.entries()) collectors.push(await startCollectorProcess(["--data-dir", d.path, "--mqtt-port", "0", "--broker", mosquitto.url, "--database-url-file", urlFile, "--node-name", `bench-${i + 1}`]));
      const tables = await checkDatabase(databaseUrl);
      if (!tables) throw new Error("the collectors did not create their tables in the database");
      await Bun.sleep(2000); // every collector subscribed to the shared group
      return await measure(label, mosquitto.url, collectors, true);
    } finally {
      for (const c of collectors) c.proc.kill("SIGTERM");
      await Promise.all(collectors.map((c) => c.proc.exited));
      for (const d of dirs) d.remove();
      await mosquitto.stop();
    }
  });
}

async function onSqlite(): Promise<Result> {
  const dir = tempDir("outpost-bench-scale-");
  const mqttPort = await freePort();
  const c = await startCollectorProcess(["--data-dir", dir.path, "--mqtt-port", String(mqttPort), "--mqtt-host", "127.0.0.1"]);
  try {
    return await measure("1 collector, SQLite, embedded broker", `mqtt://127.0.0.1:${mqttPort}`, [c], false);
  } finally {
    c.proc.kill("SIGTERM");
    await c.proc.exited;
    dir.remove();
  }
}

console.log(`scale-out: ${GENERATORS} generator processes × ${AGENTS} agents, batches of 5,000 points, window ${WINDOW}, ${DURATION / 1000} s per configuration; everything on this machine's cores`);
const results = [await onSqlite(), await onPostgres("1 collector, PostgreSQL, Mosquitto", 1), await onPostgres("2 collectors, PostgreSQL, Mosquitto", 2)];

console.log(
  `\n${"configuration".padEnd(40)} ${"points".padStart(11)} ${"points/s".padStart(10)} ${"ack p50".padStart(8)} ${"coll. CPU-s/M".padStart(14)} ${"PG CPU-s/M".padStart(11)} ${"coll.+PG cores".padStart(15)}  read 1 series p50`,
);
for (const r of results) {
  const perM = (s: number) => (s / r.points) * 1e6;
  const cores = (r.collectorCpu + (r.pgCpu ?? 0)) / r.secs;
  console.log(
    `${r.label.padEnd(40)} ${fmt(r.points).padStart(11)} ${fmt(r.points / r.secs).padStart(10)} ${`${fmt(r.p50Ack)} ms`.padStart(8)} ${fmt(perM(r.collectorCpu), 2).padStart(14)} ${(r.pgCpu === undefined ? "—" : fmt(perM(r.pgCpu), 2)).padStart(11)} ${fmt(cores, 2).padStart(15)}  ${r.readP50.map((p) => `${fmt(p, 2)} ms`).join(" / ")} (${fmt(r.readPoints)} points)`,
  );
}
