import { statfsSync } from "node:fs";
import { type OptionValues, parseDurationOption } from "../../../src/config/options.ts";
import { hostMetricOptions } from "../../../src/agent-config/host-metrics.ts";
import { createHostReader, type HostReader } from "./host-reader.ts";
import { procFiles } from "./proc-files.ts";
import type { StatFs } from "./read-filesystems.ts";
import { seriesSelection } from "./selection.ts";

// The options' schema is in src/ so that the collector checks remote configuration with it.
export { DEFAULT_EXCLUDED_FS_TYPES, DEFAULT_HOST_EXCLUDES, hostMetricOptions } from "../../../src/agent-config/host-metrics.ts";

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
