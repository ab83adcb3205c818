import { closeSync, openSync, readSync } from "node:fs";
import type { ReleaseArch } from "./signature.ts";

/** ELF e_machine of the two architectures agents are released for. */
const ELF_MACHINES: Record<number, ReleaseArch> = { 62: "x64", 183: "arm64" };

/** The architecture of an ELF executable from its first 20 bytes; undefined when it is not an ELF file of one of them. */
export function elfArchOf(head: Uint8Array): ReleaseArch | undefined {
  if (head.length < 20 || head[0] !== 0x7f || head[1] !== 0x45 || head[2] !== 0x4c || head[3] !== 0x46) return undefined;
  return ELF_MACHINES[head[18]! | (head[19]! << 8)];
}

/** The architecture of an ELF executable file; undefined when it is not one of ours. */
export function elfArch(path: string): ReleaseArch | undefined {
  const b = new Uint8Array(20);
  const fd = openSync(path, "r");
  try {
    if (readSync(fd, b, 0, 20, 0) < 20) return undefined;
  } finally {
    closeSync(fd);
  }
  return elfArchOf(b);
}
