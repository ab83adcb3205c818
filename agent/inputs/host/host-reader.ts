import type { MetricWrite } from "../../../src/metrics/model.ts";
import { parseDiskstats } from "./parse/diskstats.ts";
import { parseLoadavg } from "./parse/loadavg.ts";
import { parseMeminfo } from "./parse/meminfo.ts";
import { parseMounts } from "./parse/mounts.ts";
import { parseNetDev } from "./parse/net-dev.ts";
import { parseProcStat } from "./parse/proc-stat.ts";
import { parseUptime } from "./parse/uptime.ts";
import { parseVmstat } from "./parse/vmstat.ts";
import type { ProcFiles } from "./proc-files.ts";
import { createCpuReader } from "./read-cpu.ts";
import { readDisks } from "./read-disks.ts";
import { measuredMounts, readFilesystems, type StatFs } from "./read-filesystems.ts";
import { readMemory } from "./read-memory.ts";
import { readNetwork } from "./read-network.ts";
import { readSystem } from "./read-system.ts";
import { type HostResource, type HostSeries, SampleBuilder, type SeriesCache } from "./series.ts";
import type { SeriesSelection } from "./selection.ts";

export interface HostReaderOptions {
  feed: string;
  /** procfs, normally /proc. */
  proc: ProcFiles;
  /** sysfs, normally /sys (only /sys/block is read, to tell disks from partitions). */
  sys: ProcFiles;
  statfs: StatFs;
  selection: SeriesSelection;
  /** Filesystem types never measured (pseudo and network filesystems). */
  excludedFsTypes: ReadonlySet<string>;
  /** Clock ticks per second of /proc/stat (USER_HZ; 100 on every common architecture). */
  userHz: number;
  /** Called once per distinct problem (a file that cannot be read). */
  onProblem?: (message: string) => void;
}

export interface HostSample {
  timestamp: number;
  /** One point per series that has a value in this sample. */
  writes: MetricWrite[];
  /** Every selected series of the host, also those without a value yet. */
  series: HostSeries[];
}

export interface HostReader {
  sample(timestamp: number): HostSample;
}

const HOST: HostResource = { scope: "host", instance: "" };

/** Reads the host's metrics from procfs and statfs; never spawns a process. */
export function createHostReader(o: HostReaderOptions): HostReader {
  const cache: SeriesCache = new Map();
  const cpu = createCpuReader(o.userHz);
  const reported = new Set<string>();
  let generation = 0;

  const read = (path: string): string => {
    const text = o.proc.read(path);
    if (text === undefined && !reported.has(path)) {
      reported.add(path);
      o.onProblem?.(`cannot read ${path} below the procfs root; its metrics are skipped`);
    }
    return text ?? "";
  };

  return {
    sample(timestamp) {
      const out = new SampleBuilder(o.feed, o.selection, cache, ++generation, timestamp);
      const stat = parseProcStat(read("stat"));
      cpu(stat, out, HOST);
      readMemory(parseMeminfo(read("meminfo")), parseVmstat(read("vmstat")), out, HOST);
      readSystem(
        { stat, loadavg: parseLoadavg(read("loadavg")), uptime: parseUptime(read("uptime")), procEntries: o.proc.list("") },
        out,
        HOST,
      );
      readDisks(parseDiskstats(read("diskstats")), new Set(o.sys.list("block")), out);
      readFilesystems(measuredMounts(parseMounts(read("self/mounts")), o.excludedFsTypes), o.statfs, out);
      readNetwork(parseNetDev(read("net/dev")), out);
      out.pruneCache();
      return { timestamp, writes: out.writes, series: out.series };
    },
  };
}
