/**
 * How every input's series enter the agent: named the Prometheus way (a name and labels), with
 * the agent's `feed` label added (a clashing label of the series is kept as `exported_feed`),
 * under the id and definition tags the collector's remote-write path gives such a series
 * (src/prometheus/series-mapping.ts), as gauges (numbers) or string metrics. A series'
 * definition is buffered with its first points (src/protocol/definitions-chunk.ts) and again
 * whenever the buffer may have lost it (the ledger's generation moves on).
 */
import type { MetricType, MetricWrite } from "../../src/metrics/model.ts";
import type { SeriesDefinition } from "../../src/protocol/definitions-chunk.ts";
import { seriesId, seriesTags } from "../../src/prometheus/series-mapping.ts";
import { joinTargetLabels } from "../../src/prometheus/target-labels.ts";

/** Buffers points with the definitions they need; resolves once committed. */
export type InputSink = (writes: MetricWrite[], definitions?: SeriesDefinition[]) => Promise<unknown>;

/**
 * The generation of buffered definitions. It moves on when points may have left the buffer
 * uncommitted (dropped for its limits, refused by the collector, an append that failed):
 * every input then buffers its series' definitions again with their next points.
 */
export class DefinitionLedger {
  generation = 1;

  forget(): void {
    this.generation++;
  }
}

export type SeriesType = Extract<MetricType, "gauge" | "string">;

/** The agent's metric for labels that include `__name__`: id and definition. */
export function defineSeries(labels: Readonly<Record<string, string>>, type: SeriesType = "gauge"): SeriesDefinition {
  const name = labels.__name__ ?? "";
  return { type, id: seriesId(name, labels), tags: seriesTags(name, labels) };
}

export interface NamedSample {
  name: string;
  labels: Readonly<Record<string, string>>;
  value: number | string;
  timestamp: number;
}

/**
 * The output of inputs that hand over named samples (OTLP, Influx, StatsD). Remembers which
 * series have their definition buffered, up to `maxRemembered` (past it, it starts over: a
 * definition sent again costs a few bytes, never a wrong label).
 */
export class SeriesOutput {
  private readonly known = new Map<string, { def: SeriesDefinition; gen: number }>();

  constructor(
    private readonly feed: string,
    private readonly ledger: DefinitionLedger,
    private readonly sink: InputSink,
    private readonly maxRemembered = 200_000,
  ) {}

  /** Buffers the samples (numbers as gauges, strings as string metrics); resolves once committed. */
  async write(samples: readonly NamedSample[]): Promise<void> {
    const byId = new Map<string, MetricWrite>();
    const defs: SeriesDefinition[] = [];
    const gen = this.ledger.generation;
    const fresh: { def: SeriesDefinition; entry?: { def: SeriesDefinition; gen: number } }[] = [];
    for (const s of samples) {
      const type: SeriesType = typeof s.value === "string" ? "string" : "gauge";
      const labels = joinTargetLabels(s.name, Object.entries(s.labels), { feed: this.feed }, false);
      const id = seriesId(s.name, labels);
      const key = `${type}\u0000${id}`;
      let w = byId.get(key);
      if (!w) {
        byId.set(key, (w = { type, id, points: [] }));
        const entry = this.known.get(key);
        if (entry?.gen !== gen) {
          const def = entry?.def ?? { type, id, tags: seriesTags(s.name, labels) };
          defs.push(def);
          fresh.push({ def, entry });
        }
      }
      w.points.push({ timestamp: s.timestamp, value: s.value });
    }
    try {
      await this.sink([...byId.values()], defs);
    } catch (e) {
      this.ledger.forget();
      throw e;
    }
    if (this.known.size + fresh.length > this.maxRemembered) this.known.clear();
    for (const f of fresh) {
      if (f.entry) f.entry.gen = gen;
      else this.known.set(`${f.def.type}\u0000${f.def.id}`, { def: f.def, gen });
    }
  }
}
