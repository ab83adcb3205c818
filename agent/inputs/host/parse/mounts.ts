/** Parser for /proc/self/mounts (fstab(5) format, proc(5)). */
export interface Mount {
  device: string;
  mountPoint: string;
  fsType: string;
  options: string[];
}

/** The kernel escapes space, tab, newline and backslash as three octal digits (`\040`). */
const decodeOctal = (s: string): string => s.replace(/\\([0-7]{3})/g, (_, oct: string) => String.fromCharCode(Number.parseInt(oct, 8)));

export function parseMounts(text: string): Mount[] {
  const out: Mount[] = [];
  for (const line of text.split("\n")) {
    const [device, mountPoint, fsType, options] = line.trim().split(/\s+/);
    if (!device || !mountPoint || !fsType) continue;
    out.push({
      device: decodeOctal(device),
      mountPoint: decodeOctal(mountPoint),
      fsType,
      options: (options ?? "").split(",").filter(Boolean),
    });
  }
  return out;
}
