import { field } from "./number.ts";

/** Parser for /proc/loadavg (proc(5)): `0.86 1.65 1.90 1/202 17823`. */
export interface LoadAvg {
  load1: number;
  load5: number;
  load15: number;
  /** Scheduling entities (threads) currently runnable. */
  runnable: number;
  /** Scheduling entities (threads) that exist. */
  threads: number;
}

export function parseLoadavg(text: string): LoadAvg | undefined {
  const [l1, l5, l15, entities] = text.trim().split(/\s+/);
  const [runnable, threads] = (entities ?? "").split("/");
  const out = { load1: field(l1), load5: field(l5), load15: field(l15), runnable: field(runnable), threads: field(threads) };
  return Object.values(out).every(Number.isFinite) ? out : undefined;
}
