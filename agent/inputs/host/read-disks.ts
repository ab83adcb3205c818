import { HOST_METRICS } from "./catalog.ts";
import type { DiskStats } from "./parse/diskstats.ts";
import type { SampleBuilder } from "./series.ts";

const SECTOR_BYTES = 512;

/**
 * Disk I/O counters per device. Only whole disks (the entries of /sys/block) are kept, since a
 * partition's I/O is already in its disk's; when /sys/block cannot be read every device is kept.
 */
export function readDisks(disks: DiskStats[], wholeDisks: ReadonlySet<string>, out: SampleBuilder): void {
  for (const d of disks) {
    if (wholeDisks.size > 0 && !wholeDisks.has(d.name)) continue;
    const r = { scope: "disk" as const, instance: d.name };
    out.emit(HOST_METRICS.diskReads, r, d.reads);
    out.emit(HOST_METRICS.diskWrites, r, d.writes);
    out.emit(HOST_METRICS.diskReadBytes, r, d.sectorsRead * SECTOR_BYTES);
    out.emit(HOST_METRICS.diskWrittenBytes, r, d.sectorsWritten * SECTOR_BYTES);
    out.emit(HOST_METRICS.diskReadTime, r, d.readMs);
    out.emit(HOST_METRICS.diskWriteTime, r, d.writeMs);
    out.emit(HOST_METRICS.diskIoTime, r, d.ioMs);
    out.emit(HOST_METRICS.diskInProgress, r, d.inProgress);
  }
}
