import type { Logger } from "../../../src/log/logger.ts";
import type { MetricWrite } from "../../../src/metrics/model.ts";
import type { HostReader, HostSample } from "./host-reader.ts";

export interface HostSourceOptions {
  reader: HostReader;
  intervalMs: number;
  /** Buffers the points (the agent's intake). */
  accept(writes: MetricWrite[]): Promise<unknown>;
  /** Every sample, after its points were handed to `accept` (inventory discovery uses it). */
  sampled?: (s: HostSample) => void;
  log: Logger;
  now?: () => number;
}

/** Samples the host every interval, starting at once, and hands the points to the intake. */
export function startHostSource(o: HostSourceOptions): { stop(): void } {
  const now = o.now ?? Date.now;
  let first = true;
  const run = () => {
    let sample: HostSample;
    try {
      sample = o.reader.sample(now());
    } catch (e) {
      o.log.error("reading host metrics failed", { err: (e as Error).message });
      return;
    }
    if (first) {
      first = false;
      o.log.info("collecting host metrics", { series: sample.series.length, intervalMs: o.intervalMs });
    }
    o.accept(sample.writes).catch((e) => o.log.error("buffering host metrics failed", { err: (e as Error).message }));
    o.sampled?.(sample);
  };
  run();
  const timer = setInterval(run, o.intervalMs);
  return { stop: () => clearInterval(timer) };
}
