import type { Counter, Telemetry } from "../../src/telemetry/registry.ts";

/** Self-metrics of one input (label `input`: prometheus, otlp, statsd, influx). */
export interface InputCounters {
  /** Samples taken in (after relabelling). */
  samples: Counter;
  /** Bad input: lines or packets that do not parse, failed scrapes, refused requests. */
  errors: Counter;
  /** Samples not buffered: values that cannot be stored, limits reached, a buffer that refused them. */
  dropped: Counter;
  /** Bytes read (scraped bodies, request bodies, packets). */
  bytes: Counter;
}

/** Registers the per-input counters; returns the counters of a named input. */
export function inputTelemetry(t: Telemetry): (input: string) => InputCounters {
  const samples = t.counters("outpost_agent_input_samples_total", "samples an input took in (after relabelling)", ["input"]);
  const errors = t.counters("outpost_agent_input_errors_total", "bad input: lines or packets that do not parse, failed scrapes, refused requests", ["input"]);
  const dropped = t.counters("outpost_agent_input_dropped_total", "samples an input could not buffer: values that cannot be stored, limits reached, a buffer that refused them", ["input"]);
  const bytes = t.counters("outpost_agent_input_bytes_total", "bytes an input read: scraped bodies, request bodies, packets", ["input"]);
  // A counter appears at its first use, so an agent whose inputs are idle stores no series of zeros.
  const lazy = (family: { with(l: { input: string }): Counter }, input: string): Counter => {
    let c: Counter | undefined;
    return {
      inc: (n?: number) => (c ??= family.with({ input })).inc(n),
      get value() {
        return c?.value ?? 0;
      },
    };
  };
  return (input) => ({ samples: lazy(samples, input), errors: lazy(errors, input), dropped: lazy(dropped, input), bytes: lazy(bytes, input) });
}
