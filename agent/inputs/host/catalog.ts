import type { MetricUnit } from "../../../src/inventory/model.ts";

/** The resource a host series belongs to in the feed's inventory. */
export type HostScope = "host" | "cpu" | "disk" | "filesystem" | "interface";

export interface HostMetricSpec {
  name: string;
  /** Counters only grow (until a reboot or wrap); gauges go up and down. */
  kind: "gauge" | "counter";
  unit: MetricUnit;
  scope: HostScope;
  /** The tag naming the instance (cpu, device, mountpoint, interface); none for host-wide metrics. */
  instanceTag?: string;
  /** A second dimension after the instance (the CPU mode). */
  dimensionTag?: string;
  help: string;
}

const g = (name: string, unit: MetricUnit, scope: HostScope, help: string, instanceTag?: string): HostMetricSpec => ({
  name,
  kind: "gauge",
  unit,
  scope,
  help,
  instanceTag,
});
const c = (name: string, unit: MetricUnit, scope: HostScope, help: string, instanceTag?: string): HostMetricSpec => ({
  name,
  kind: "counter",
  unit,
  scope,
  help,
  instanceTag,
});

/**
 * Every host metric the agent can collect. docs/metrics.md describes the same list (a test
 * checks that they agree); inventory metric types are generated from it.
 */
export const HOST_METRICS = {
  cpuTime: {
    name: "cpu_time_ms_total",
    kind: "counter",
    unit: "MILLISECONDS",
    scope: "cpu",
    instanceTag: "cpu",
    dimensionTag: "mode",
    help: "time the CPU spent in each mode (/proc/stat; guest time is also counted in user and nice)",
  },
  cpuUsage: g("cpu_usage_percent", "PERCENTAGE", "cpu", "share of time not idle nor waiting for I/O since the previous sample", "cpu"),
  memTotal: g("memory_total_bytes", "BYTES", "host", "usable RAM (MemTotal)"),
  memFree: g("memory_free_bytes", "BYTES", "host", "unused RAM (MemFree)"),
  memAvailable: g("memory_available_bytes", "BYTES", "host", "RAM available to start new programs without swapping (MemAvailable)"),
  memBuffers: g("memory_buffers_bytes", "BYTES", "host", "block device buffers (Buffers)"),
  memCached: g("memory_cached_bytes", "BYTES", "host", "page cache (Cached)"),
  memUsed: g("memory_used_bytes", "BYTES", "host", "MemTotal − MemAvailable"),
  memUsedPercent: g("memory_used_percent", "PERCENTAGE", "host", "memory_used_bytes / memory_total_bytes"),
  swapTotal: g("swap_total_bytes", "BYTES", "host", "swap space (SwapTotal)"),
  swapFree: g("swap_free_bytes", "BYTES", "host", "unused swap space (SwapFree)"),
  swapUsed: g("swap_used_bytes", "BYTES", "host", "SwapTotal − SwapFree"),
  swapIn: c("swap_in_pages_total", "NONE", "host", "pages swapped in (/proc/vmstat pswpin)"),
  swapOut: c("swap_out_pages_total", "NONE", "host", "pages swapped out (/proc/vmstat pswpout)"),
  load1: g("load1", "NONE", "host", "load average over 1 minute"),
  load5: g("load5", "NONE", "host", "load average over 5 minutes"),
  load15: g("load15", "NONE", "host", "load average over 15 minutes"),
  processes: g("processes", "NONE", "host", "processes that exist (entries in /proc)"),
  processesRunning: g("processes_running", "NONE", "host", "threads runnable (procs_running)"),
  processesBlocked: g("processes_blocked", "NONE", "host", "threads blocked waiting for I/O (procs_blocked)"),
  threads: g("threads", "NONE", "host", "threads that exist (/proc/loadavg)"),
  forks: c("forks_total", "NONE", "host", "processes and threads created since boot"),
  contextSwitches: c("context_switches_total", "NONE", "host", "context switches since boot"),
  interrupts: c("interrupts_total", "NONE", "host", "interrupts serviced since boot"),
  uptime: g("uptime_seconds", "SECONDS", "host", "time since boot"),
  diskReads: c("disk_reads_total", "NONE", "disk", "reads completed", "device"),
  diskWrites: c("disk_writes_total", "NONE", "disk", "writes completed", "device"),
  diskReadBytes: c("disk_read_bytes_total", "BYTES", "disk", "bytes read", "device"),
  diskWrittenBytes: c("disk_written_bytes_total", "BYTES", "disk", "bytes written", "device"),
  diskReadTime: c("disk_read_time_ms_total", "MILLISECONDS", "disk", "time spent reading", "device"),
  diskWriteTime: c("disk_write_time_ms_total", "MILLISECONDS", "disk", "time spent writing", "device"),
  diskIoTime: c("disk_io_time_ms_total", "MILLISECONDS", "disk", "time the device was busy", "device"),
  diskInProgress: g("disk_io_in_progress", "NONE", "disk", "I/Os currently in flight", "device"),
  fsSize: g("filesystem_size_bytes", "BYTES", "filesystem", "size of the filesystem", "mountpoint"),
  fsFree: g("filesystem_free_bytes", "BYTES", "filesystem", "free space, including blocks reserved for root", "mountpoint"),
  fsAvailable: g("filesystem_available_bytes", "BYTES", "filesystem", "free space available to unprivileged users", "mountpoint"),
  fsUsed: g("filesystem_used_bytes", "BYTES", "filesystem", "size − free", "mountpoint"),
  fsUsedPercent: g("filesystem_used_percent", "PERCENTAGE", "filesystem", "used / (used + available), as df shows it", "mountpoint"),
  fsFiles: g("filesystem_files", "NONE", "filesystem", "inodes", "mountpoint"),
  fsFilesFree: g("filesystem_files_free", "NONE", "filesystem", "free inodes", "mountpoint"),
  netRxBytes: c("network_receive_bytes_total", "BYTES", "interface", "bytes received", "interface"),
  netTxBytes: c("network_transmit_bytes_total", "BYTES", "interface", "bytes sent", "interface"),
  netRxPackets: c("network_receive_packets_total", "NONE", "interface", "packets received", "interface"),
  netTxPackets: c("network_transmit_packets_total", "NONE", "interface", "packets sent", "interface"),
  netRxErrors: c("network_receive_errors_total", "NONE", "interface", "receive errors", "interface"),
  netTxErrors: c("network_transmit_errors_total", "NONE", "interface", "transmit errors", "interface"),
  netRxDropped: c("network_receive_dropped_total", "NONE", "interface", "received packets dropped", "interface"),
  netTxDropped: c("network_transmit_dropped_total", "NONE", "interface", "packets dropped before sending", "interface"),
} as const satisfies Record<string, HostMetricSpec>;

export type HostMetricKey = keyof typeof HOST_METRICS;

export const HOST_METRIC_LIST: readonly HostMetricSpec[] = Object.values(HOST_METRICS);
