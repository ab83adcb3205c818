import { field } from "./number.ts";

/**
 * Parser for /proc/cpuinfo. Its keys differ by architecture: x86 writes `model name` per
 * processor; ARM writes `model name` (or, on older kernels, `Processor`) and, once for the
 * board, `Hardware` and `Model` (Raspberry Pi).
 */
export interface CpuInfo {
  processors: { index: number; model?: string }[];
  /** Board or system model, when the kernel names one. */
  machine?: string;
}

export function parseCpuinfo(text: string): CpuInfo {
  const out: CpuInfo = { processors: [] };
  let legacyModel: string | undefined;
  let hardware: string | undefined;
  for (const block of text.split(/\n\s*\n/)) {
    let index = Number.NaN;
    let model: string | undefined;
    for (const line of block.split("\n")) {
      const colon = line.indexOf(":");
      if (colon < 0) continue;
      const key = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      if (key === "processor") index = field(value);
      else if (key === "model name" || key === "cpu model") model = value;
      else if (key === "Processor") legacyModel = value;
      else if (key === "Hardware") hardware = value;
      else if (key === "Model") out.machine = value;
    }
    if (Number.isInteger(index)) out.processors.push(model === undefined ? { index } : { index, model });
  }
  if (legacyModel !== undefined) for (const p of out.processors) p.model ??= legacyModel;
  out.machine ??= hardware;
  return out;
}
