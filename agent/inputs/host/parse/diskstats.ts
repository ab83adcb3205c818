import { field } from "./number.ts";

/**
 * Parser for /proc/diskstats (kernel Documentation/admin-guide/iostats.rst). Kernels before 4.18
 * write 14 columns, 4.18 adds discards (18), 5.5 adds flushes (20); missing ones are absent.
 */
export interface DiskStats {
  major: number;
  minor: number;
  name: string;
  reads: number;
  readsMerged: number;
  /** Always in 512-byte units, whatever the device's sector size. */
  sectorsRead: number;
  readMs: number;
  writes: number;
  writesMerged: number;
  sectorsWritten: number;
  writeMs: number;
  inProgress: number;
  ioMs: number;
  weightedIoMs: number;
  discards?: number;
  discardsMerged?: number;
  sectorsDiscarded?: number;
  discardMs?: number;
  flushes?: number;
  flushMs?: number;
}

const REQUIRED = [
  "reads",
  "readsMerged",
  "sectorsRead",
  "readMs",
  "writes",
  "writesMerged",
  "sectorsWritten",
  "writeMs",
  "inProgress",
  "ioMs",
  "weightedIoMs",
] as const;
const OPTIONAL = ["discards", "discardsMerged", "sectorsDiscarded", "discardMs", "flushes", "flushMs"] as const;

export function parseDiskstats(text: string): DiskStats[] {
  const out: DiskStats[] = [];
  for (const line of text.split("\n")) {
    const f = line.trim().split(/\s+/);
    if (f.length < 3 + REQUIRED.length) continue;
    const disk: Record<string, number | string> = { major: field(f[0]), minor: field(f[1]), name: f[2]! };
    REQUIRED.forEach((k, i) => {
      disk[k] = field(f[3 + i]);
    });
    OPTIONAL.forEach((k, i) => {
      const n = field(f[3 + REQUIRED.length + i]);
      if (Number.isFinite(n)) disk[k] = n;
    });
    if ([disk.major, disk.minor, ...REQUIRED.map((k) => disk[k])].every((n) => Number.isFinite(n))) {
      out.push(disk as unknown as DiskStats);
    }
  }
  return out;
}
