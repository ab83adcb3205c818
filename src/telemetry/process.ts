import { readdirSync, readFileSync } from "node:fs";
import { rateOf } from "./rate.ts";
import type { Telemetry } from "./registry.ts";

/** Open file descriptors of this process (Linux /proc); NaN where it cannot be counted. */
function openFds(): number {
  try {
    return readdirSync("/proc/self/fd").length;
  } catch {
    return Number.NaN;
  }
}

function maxFds(): number {
  try {
    const m = /^Max open files\s+(\d+)/m.exec(readFileSync("/proc/self/limits", "utf8"));
    return m ? Number(m[1]) : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/**
 * Measures how late timers fire: a timer every `everyMs` notes its delay past due, and the
 * gauge reads the largest delay of the last `windowMs`. A busy event loop answers requests
 * late by about that much.
 */
function eventLoopLag(everyMs: number, windowMs: number): { read(): number; stop(): void } {
  const lags: number[] = [];
  const keep = Math.max(1, Math.round(windowMs / everyMs));
  let due = performance.now() + everyMs;
  const timer = setInterval(() => {
    const t = performance.now();
    lags.push(Math.max(0, t - due));
    if (lags.length > keep) lags.shift();
    due = t + everyMs;
  }, everyMs);
  timer.unref?.();
  return { read: () => (lags.length === 0 ? 0 : Math.max(...lags) / 1000), stop: () => clearInterval(timer) };
}

/**
 * The process metrics both programs expose, under the names Prometheus client libraries use
 * (so existing dashboards and alert rules apply), plus the event loop lag.
 */
export function registerProcessMetrics(t: Telemetry, o: { lagEveryMs?: number } = {}): { stop(): void } {
  const started = Date.now() / 1000 - process.uptime();
  const limit = maxFds();
  const cpuSeconds = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1e6;
  };
  t.counterFrom("process_cpu_seconds_total", "user and system CPU time spent by the process, in seconds", cpuSeconds, "gauge");
  t.gauge("outpost_process_cpu_usage_ratio", "CPU used by the process over about the last 10 s, as a share of one core (1 = one core busy)", rateOf(cpuSeconds, 10_000));
  t.gauge("process_resident_memory_bytes", "resident set size of the process", () => process.memoryUsage.rss());
  t.gauge("process_open_fds", "open file descriptors of the process", openFds);
  if (Number.isFinite(limit)) t.gauge("process_max_fds", "limit of open file descriptors of the process", () => limit);
  t.gauge("process_start_time_seconds", "when the process started, in seconds since the Unix epoch", () => started);
  const lag = eventLoopLag(o.lagEveryMs ?? 1000, 10_000);
  t.gauge("outpost_event_loop_lag_seconds", "largest delay of the event loop over the last 10 s (how late timers and requests are served)", lag.read);
  return lag;
}
