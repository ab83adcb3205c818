import { field } from "./number.ts";

/** Parser for /proc/stat (proc(5)): CPU time per mode, context switches, forks, process states. */

/** The CPU time columns of a `cpu` line, in the kernel's order. */
export const CPU_MODES = ["user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal", "guest", "guest_nice"] as const;
export type CpuMode = (typeof CPU_MODES)[number];

/** Time spent in each mode, in USER_HZ ticks. Modes an older kernel does not report are absent. */
export type CpuTimes = Partial<Record<CpuMode, number>>;

export interface ProcStat {
  /** The aggregate `cpu` line. */
  total: CpuTimes;
  /** The `cpuN` lines; offline CPUs are missing, so N need not be contiguous. */
  cores: { index: number; times: CpuTimes }[];
  contextSwitches?: number;
  interrupts?: number;
  /** Boot time, seconds since the epoch. */
  bootTime?: number;
  /** Processes and threads created since boot. */
  forks?: number;
  procsRunning?: number;
  procsBlocked?: number;
}

function cpuTimes(fields: string[]): CpuTimes {
  const times: CpuTimes = {};
  for (let i = 0; i < CPU_MODES.length && i < fields.length; i++) {
    const n = field(fields[i]);
    if (Number.isFinite(n)) times[CPU_MODES[i]!] = n;
  }
  return times;
}

export function parseProcStat(text: string): ProcStat {
  const out: ProcStat = { total: {}, cores: [] };
  for (const line of text.split("\n")) {
    const fields = line.trim().split(/\s+/);
    const key = fields[0];
    if (!key) continue;
    const first = field(fields[1]);
    if (key === "cpu") out.total = cpuTimes(fields.slice(1));
    else if (key.startsWith("cpu")) {
      const index = Number(key.slice(3));
      if (Number.isInteger(index)) out.cores.push({ index, times: cpuTimes(fields.slice(1)) });
    } else if (!Number.isFinite(first)) continue;
    // `intr` and `softirq` are followed by per-source counts; only the first (the sum) is kept.
    else if (key === "ctxt") out.contextSwitches = first;
    else if (key === "intr") out.interrupts = first;
    else if (key === "btime") out.bootTime = first;
    else if (key === "processes") out.forks = first;
    else if (key === "procs_running") out.procsRunning = first;
    else if (key === "procs_blocked") out.procsBlocked = first;
  }
  return out;
}
