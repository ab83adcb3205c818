import { HOST_METRICS } from "./catalog.ts";
import type { LoadAvg } from "./parse/loadavg.ts";
import type { ProcStat } from "./parse/proc-stat.ts";
import type { Uptime } from "./parse/uptime.ts";
import type { HostResource, SampleBuilder } from "./series.ts";

const isPid = (name: string) => name.length > 0 && name.charCodeAt(0) >= 48 && name.charCodeAt(0) <= 57;

/** Load, process and thread counts, kernel activity counters and uptime. */
export function readSystem(
  input: { stat: ProcStat; loadavg: LoadAvg | undefined; uptime: Uptime | undefined; procEntries: string[] },
  out: SampleBuilder,
  host: HostResource,
): void {
  const { stat, loadavg, uptime } = input;
  out.emit(HOST_METRICS.load1, host, loadavg?.load1);
  out.emit(HOST_METRICS.load5, host, loadavg?.load5);
  out.emit(HOST_METRICS.load15, host, loadavg?.load15);
  out.emit(HOST_METRICS.threads, host, loadavg?.threads);
  // Every process has a numeric directory in /proc (threads are under /proc/PID/task).
  const processes = input.procEntries.reduce((n, name) => (isPid(name) ? n + 1 : n), 0);
  out.emit(HOST_METRICS.processes, host, processes > 0 ? processes : undefined);
  out.emit(HOST_METRICS.processesRunning, host, stat.procsRunning);
  out.emit(HOST_METRICS.processesBlocked, host, stat.procsBlocked);
  out.emit(HOST_METRICS.forks, host, stat.forks);
  out.emit(HOST_METRICS.contextSwitches, host, stat.contextSwitches);
  out.emit(HOST_METRICS.interrupts, host, stat.interrupts);
  out.emit(HOST_METRICS.uptime, host, uptime?.uptimeSeconds);
}
