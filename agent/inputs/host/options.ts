import { statfsSync } from "node:fs";
import { type OptionSpec, type OptionValues, parseDurationOption } from "../../../src/config/options.ts";
import { createHostReader, type HostReader } from "./host-reader.ts";
import { procFiles } from "./proc-files.ts";
import type { StatFs } from "./read-filesystems.ts";
import { seriesSelection } from "./selection.ts";

/**
 * Pseudo filesystems have no space to watch; network filesystems are left out because statfs
 * on an unreachable server blocks the agent.
 */
export const DEFAULT_EXCLUDED_FS_TYPES = [
  "autofs", "binfmt_misc", "bpf", "cgroup", "cgroup2", "configfs", "debugfs", "devpts", "devtmpfs", "efivarfs",
  "fusectl", "hugetlbfs", "mqueue", "nsfs", "overlay", "proc", "pstore", "ramfs", "rpc_pipefs", "securityfs",
  "selinuxfs", "squashfs", "sysfs", "tmpfs", "tracefs",
  "nfs", "nfs4", "cifs", "smb3", "9p", "ceph", "glusterfs", "fuse.sshfs", "fuse.lxcfs",
];

/** Loopback, RAM and compressed-RAM devices and the loopback interface. */
export const DEFAULT_HOST_EXCLUDES = ["disk_*:loop*", "disk_*:ram*", "disk_*:zram*", "network_*:lo"];

export const hostMetricOptions: OptionSpec[] = [
  { name: "host-metrics", kind: "boolean", default: true, help: "collect the host's metrics from procfs and statfs" },
  { name: "host-interval", kind: "duration", min: 100, max: 86_400_000, default: "10s", help: "how often host metrics are collected" },
  {
    name: "host-include",
    kind: "list",
    default: ["*"],
    reloadable: true,
    help: "host series to collect: globs over `name[:instance[:mode]]` (see docs/metrics.md), e.g. `cpu_*,memory_*` (re-read on SIGHUP)",
  },
  {
    name: "host-exclude",
    kind: "list",
    default: DEFAULT_HOST_EXCLUDES,
    reloadable: true,
    help: "host series not to collect, same globs, e.g. `cpu_time_ms_total:cpu*` drops per-core CPU times (re-read on SIGHUP)",
  },
  {
    name: "host-exclude-fs-types",
    kind: "list",
    default: DEFAULT_EXCLUDED_FS_TYPES,
    reloadable: true,
    help: "filesystem types whose space is not measured (pseudo and network filesystems by default; re-read on SIGHUP)",
  },
  { name: "proc-root", kind: "string", default: "/proc", help: "where procfs is mounted (the host's /proc when the agent runs in a container)" },
  { name: "sys-root", kind: "string", default: "/sys", help: "where sysfs is mounted (used to tell whole disks from partitions)" },
  { name: "user-hz", kind: "int", min: 1, max: 100_000, default: 100, help: "clock ticks per second in /proc/stat (USER_HZ; 100 except on alpha and ia64)" },
];

export interface HostMetricsConfig {
  enabled: boolean;
  intervalMs: number;
  include: string[];
  exclude: string[];
  excludedFsTypes: string[];
  procRoot: string;
  sysRoot: string;
  userHz: number;
}

/** The host options from parsed values; options not given take their defaults (as when called from tests). */
export function hostMetricsConfig(values: OptionValues): HostMetricsConfig {
  const v = (name: string) => values[name] ?? hostMetricOptions.find((o) => o.name === name)?.default;
  const interval = v("host-interval");
  return {
    enabled: v("host-metrics") !== false,
    intervalMs: typeof interval === "number" ? interval : parseDurationOption(String(interval)),
    include: v("host-include") as string[],
    exclude: v("host-exclude") as string[],
    excludedFsTypes: v("host-exclude-fs-types") as string[],
    procRoot: String(v("proc-root")),
    sysRoot: String(v("sys-root")),
    userHz: Number(v("user-hz")),
  };
}

/** statfs(2) of a mount point through node:fs; undefined when it cannot be measured (unmounted, no permission). */
export const systemStatfs: StatFs = (mountPoint) => {
  try {
    return statfsSync(mountPoint);
  } catch {
    return undefined;
  }
};

/** A host reader on the real procfs, sysfs and statfs, as configured. */
export function hostReaderFor(feed: string, c: HostMetricsConfig, onProblem?: (m: string) => void): HostReader {
  return createHostReader({
    feed,
    proc: procFiles(c.procRoot),
    sys: procFiles(c.sysRoot),
    statfs: systemStatfs,
    selection: seriesSelection(c.include, c.exclude),
    excludedFsTypes: new Set(c.excludedFsTypes),
    userHz: c.userHz,
    onProblem,
  });
}
