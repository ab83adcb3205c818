import { HOST_METRICS } from "./catalog.ts";
import type { Mount } from "./parse/mounts.ts";
import { percent, type SampleBuilder } from "./series.ts";

/** What statfs(2) reports, as node:fs gives it (Bun adds frsize, the unit of the block counts). */
export interface StatFsResult {
  bsize: number;
  frsize?: number;
  blocks: number;
  bfree: number;
  bavail: number;
  files: number;
  ffree: number;
}

export type StatFs = (mountPoint: string) => StatFsResult | undefined;

/** The mounts to measure: not of an excluded type, and the last mount on each mount point (the visible one). */
export function measuredMounts(mounts: Mount[], excludedTypes: ReadonlySet<string>): Mount[] {
  const byPoint = new Map<string, Mount>();
  for (const m of mounts) {
    byPoint.delete(m.mountPoint);
    byPoint.set(m.mountPoint, m);
  }
  return [...byPoint.values()].filter((m) => !excludedTypes.has(m.fsType));
}

/** Space and inodes per mounted filesystem. */
export function readFilesystems(mounts: Mount[], statfs: StatFs, out: SampleBuilder): void {
  for (const m of mounts) {
    const s = statfs(m.mountPoint);
    if (!s) continue;
    const unit = s.frsize || s.bsize;
    const size = s.blocks * unit;
    const free = s.bfree * unit;
    const available = s.bavail * unit;
    const used = size - free;
    const r = { scope: "filesystem" as const, instance: m.mountPoint, properties: { device: m.device, fsType: m.fsType } };
    out.emit(HOST_METRICS.fsSize, r, size);
    out.emit(HOST_METRICS.fsFree, r, free);
    out.emit(HOST_METRICS.fsAvailable, r, available);
    out.emit(HOST_METRICS.fsUsed, r, used);
    out.emit(HOST_METRICS.fsUsedPercent, r, used + available > 0 ? percent(used, used + available) : undefined);
    out.emit(HOST_METRICS.fsFiles, r, s.files);
    out.emit(HOST_METRICS.fsFilesFree, r, s.ffree);
  }
}
