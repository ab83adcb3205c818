import { HOST_METRICS } from "./catalog.ts";
import { type HostResource, percent, type SampleBuilder } from "./series.ts";

/** Memory and swap from /proc/meminfo (bytes) and swap activity from /proc/vmstat. */
export function readMemory(meminfo: Map<string, number>, vmstat: Map<string, number>, out: SampleBuilder, host: HostResource): void {
  const total = meminfo.get("MemTotal");
  const free = meminfo.get("MemFree");
  const buffers = meminfo.get("Buffers");
  const cached = meminfo.get("Cached");
  // Kernels before 3.14 have no MemAvailable; free + buffers + page cache is the usual estimate.
  const available =
    meminfo.get("MemAvailable") ??
    (free !== undefined && buffers !== undefined && cached !== undefined ? free + buffers + cached : undefined);
  const used = total !== undefined && available !== undefined ? total - available : undefined;
  out.emit(HOST_METRICS.memTotal, host, total);
  out.emit(HOST_METRICS.memFree, host, free);
  out.emit(HOST_METRICS.memAvailable, host, available);
  out.emit(HOST_METRICS.memBuffers, host, buffers);
  out.emit(HOST_METRICS.memCached, host, cached);
  out.emit(HOST_METRICS.memUsed, host, used);
  out.emit(HOST_METRICS.memUsedPercent, host, used !== undefined && total ? percent(used, total) : undefined);

  const swapTotal = meminfo.get("SwapTotal");
  const swapFree = meminfo.get("SwapFree");
  out.emit(HOST_METRICS.swapTotal, host, swapTotal);
  out.emit(HOST_METRICS.swapFree, host, swapFree);
  out.emit(HOST_METRICS.swapUsed, host, swapTotal !== undefined && swapFree !== undefined ? swapTotal - swapFree : undefined);
  out.emit(HOST_METRICS.swapIn, host, vmstat.get("pswpin"));
  out.emit(HOST_METRICS.swapOut, host, vmstat.get("pswpout"));
}
