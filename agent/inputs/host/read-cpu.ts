import { HOST_METRICS } from "./catalog.ts";
import { CPU_MODES, type CpuTimes, type ProcStat } from "./parse/proc-stat.ts";
import { type HostResource, percent, type SampleBuilder } from "./series.ts";

interface Ticks {
  busy: number;
  total: number;
}

// guest and guest_nice are already part of user and nice, so they are left out of the sums.
const ticksOf = (t: CpuTimes): Ticks => {
  const idle = (t.idle ?? 0) + (t.iowait ?? 0);
  const total = (t.user ?? 0) + (t.nice ?? 0) + (t.system ?? 0) + idle + (t.irq ?? 0) + (t.softirq ?? 0) + (t.steal ?? 0);
  return { busy: total - idle, total };
};

/**
 * CPU time per mode (counters, in ms) and usage since the previous sample (gauge), for the host
 * as a whole and per core. Keeps the previous tick counts to compute usage.
 */
export function createCpuReader(userHz: number) {
  const msPerTick = 1000 / userHz;
  let previous = new Map<string, Ticks>();

  const readOne = (out: SampleBuilder, resource: HostResource, times: CpuTimes, next: Map<string, Ticks>) => {
    for (const mode of CPU_MODES) {
      const ticks = times[mode];
      if (ticks !== undefined) out.emit(HOST_METRICS.cpuTime, resource, ticks * msPerTick, mode);
    }
    const now = ticksOf(times);
    const before = previous.get(resource.instance);
    next.set(resource.instance, now);
    const dTotal = before ? now.total - before.total : 0;
    // No usage on the first sample, nor when counters went back (a CPU came back online).
    const usage = before && dTotal > 0 && now.busy >= before.busy ? percent(now.busy - before.busy, dTotal) : undefined;
    out.emit(HOST_METRICS.cpuUsage, resource, usage);
  };

  return (stat: ProcStat, out: SampleBuilder, host: HostResource): void => {
    const next = new Map<string, Ticks>();
    readOne(out, host, stat.total, next);
    for (const core of stat.cores) readOne(out, { scope: "cpu", instance: `cpu${core.index}` }, core.times, next);
    previous = next;
  };
}
