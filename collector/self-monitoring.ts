import { readdirSync, statfsSync, statSync } from "node:fs";
import { join } from "node:path";
import type { MiddlewareHandler } from "hono";
import { registerProcessMetrics } from "../src/telemetry/process.ts";
import type { Telemetry } from "../src/telemetry/registry.ts";
import type { PointsBus } from "./events/points-bus.ts";
import type { MetricsMemory } from "./store/metrics/types.ts";
import { INGEST_LOG_DIR } from "./store/metrics/sqlite/ingest-log.ts";

/** The interface a request path belongs to: the service under /svc or /hawkular, or the root's own. */
export function interfaceOf(path: string): string {
  const m = /^\/(?:svc|hawkular)\/([a-z]+)/.exec(path);
  if (m) return m[1]!;
  const first = /^\/([a-z]+)/.exec(path)?.[1];
  if (first === "metrics") return "scrape";
  // Probes: liveness and readiness together.
  if (first === "health" || first === "ready") return "health";
  if (first === "prometheus" || path.startsWith("/api/v1/")) return "prometheus";
  if (first === "influx" || first === "write" || path.startsWith("/api/v2/")) return "influx";
  return "other";
}

/** The database files of the data folder and their sizes with WAL and shared memory. */
function databaseSizes(dataDir: string): [string, number][] {
  const sizes = new Map<string, number>();
  let names: string[];
  try {
    names = readdirSync(dataDir);
  } catch {
    return [];
  }
  for (const f of names) {
    const m = /^(.+)\.db(-wal|-shm)?$/.exec(f);
    if (!m) continue;
    try {
      sizes.set(m[1]!, (sizes.get(m[1]!) ?? 0) + statSync(join(dataDir, f)).size);
    } catch {}
  }
  // The metrics store's ingest log (its segment files) counts with metrics.db, as its WAL does.
  try {
    const dir = join(dataDir, INGEST_LOG_DIR);
    for (const f of readdirSync(dir)) if (f.endsWith(".log")) sizes.set("metrics", (sizes.get("metrics") ?? 0) + statSync(join(dir, f)).size);
  } catch {}
  return [...sizes];
}

function diskOf(dataDir: string): { free: number; size: number } {
  try {
    const s = statfsSync(dataDir);
    return { free: s.bavail * s.bsize, size: s.blocks * s.bsize };
  } catch {
    return { free: Number.NaN, size: Number.NaN };
  }
}

/**
 * The collector's health as metrics, fit for alerting: the process (CPU, memory, open files,
 * event loop), HTTP requests and latencies per interface, points ingested per path, and the
 * data folder's disk. Served at /metrics and stored under the self-metrics tenant.
 */
export function startSelfMonitoring(o: {
  telemetry: Telemetry;
  bus: PointsBus;
  dataDir: string;
  /** Memory the metrics store holds: its chunk cache and the points in its heads. */
  metricsMemory?: () => MetricsMemory;
}): { observeHttp: MiddlewareHandler; stop(): void } {
  const t = o.telemetry;
  const proc = registerProcessMetrics(t);
  const requests = t.counters("outpost_http_requests_total", "HTTP requests answered, by interface and status class (2xx, 4xx, 5xx...)", ["interface", "code"]);
  const latency = t.histograms("outpost_http_request_duration_seconds", "time to answer an HTTP request (to the response headers), by interface", ["interface"]);
  const observeHttp: MiddlewareHandler = async (c, next) => {
    const started = performance.now();
    const iface = interfaceOf(c.req.path);
    try {
      await next();
    } finally {
      latency.with({ interface: iface }).observe((performance.now() - started) / 1000);
      requests.with({ interface: iface, code: `${Math.floor((c.res?.status ?? 500) / 100)}xx` }).inc();
    }
  };

  const ingested = t.counters("outpost_collector_points_ingested_total", "data points committed to the store, by the path they came in on (http, mqtt)", ["path"]);
  for (const path of ["http", "mqtt"]) ingested.with({ path });
  const unsubscribe = o.bus.subscribe((p) => {
    let n = p.points ?? 0;
    if (p.points === undefined) for (const w of p.writes) n += w.points.length;
    ingested.with({ path: p.origin.split(":")[0]! }).inc(n);
  });

  t.gauge("outpost_collector_disk_free_bytes", "space left for the collector's data on the filesystem of --data-dir (available to unprivileged users)", () => diskOf(o.dataDir).free);
  t.gauge("outpost_collector_disk_size_bytes", "size of the filesystem of --data-dir", () => diskOf(o.dataDir).size);
  const mem = o.metricsMemory;
  if (mem) {
    t.gauge("outpost_collector_chunk_cache_bytes", "memory held by the metric chunks cached between reads (at most --chunk-cache)", () => mem().chunkCacheBytes);
    t.gauge("outpost_collector_chunk_cache_chunks", "metric chunks cached between reads", () => mem().chunkCacheChunks);
    t.counterFrom("outpost_collector_chunk_reads_decoded_total", "reads of sealed metric chunks by queries answered by a decoded copy in the chunk cache", () => mem().chunkReads.decoded);
    t.counterFrom("outpost_collector_chunk_reads_cached_total", "reads of sealed metric chunks by queries answered by a compressed block in the chunk cache", () => mem().chunkReads.block);
    t.counterFrom("outpost_collector_chunk_reads_database_total", "reads of sealed metric chunks by queries that went to metrics.db (in neither part of the chunk cache)", () => mem().chunkReads.database);
    t.gauge("outpost_collector_head_points", "points written but not yet sealed into chunks (in memory, and in the ingest log on disk)", () => mem().headPoints);
  }
  t.gauges("outpost_collector_database_bytes", "size of each database with its write-ahead log (metrics: and its ingest log files)", "database", () => databaseSizes(o.dataDir));

  return {
    observeHttp,
    stop() {
      proc.stop();
      unsubscribe();
    },
  };
}
