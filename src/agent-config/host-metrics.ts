/**
 * The agent's host metric options (docs/metrics.md): whether, how often and which series. In
 * `src/` beside the other agent option schemas, so that the collector checks a remote
 * configuration (docs/fleet.md) with the same code the agent reads its own with.
 */
import type { OptionSpec } from "../config/options.ts";

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
  { name: "host-interval", kind: "duration", min: 100, max: 86_400_000, default: "10s", reloadable: true, help: "how often host metrics are collected (re-read on SIGHUP)" },
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
