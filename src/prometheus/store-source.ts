/**
 * The PromQL evaluator's view of one tenant's metrics: every numeric metric is a series whose
 * labels are its tags (see src/prometheus/series-mapping.ts); availability reads as 1 (up) and
 * 0 (down), unknown availability as no sample; string metrics are not series.
 */
import type { Matcher } from "../promql/ast.ts";
import { compareLabels, labelsKey, type Labels } from "../promql/labels.ts";
import type { RawSeries, ReadBuffers, SeriesRef, SeriesSource } from "../promql/values.ts";
import { AVAILABILITY_CODE } from "../metrics/model.ts";
import type { MetricsReader, NumericSeries, SeriesParts } from "../metrics/reader.ts";
import { type IndexedSeries, type LabelIndex, labelIndex } from "./label-index.ts";
import type { Resolutions } from "../metrics/rollup/tier-stats.ts";
import { TierWindows, tiersWorthReading } from "./rollup-windows.ts";
import type { WindowHint } from "../promql/tier-windows.ts";
import { withMarkersApart } from "./marker-split.ts";

/** A selected series that can also hand over its samples undecoded. */
export interface StoreSeriesRef extends SeriesRef {
  /** Undefined when this series' samples cannot be handed over (see StoreSeriesSource.parts). */
  parts(): Promise<SeriesParts | undefined>;
}

export class StoreSeriesSource implements SeriesSource {
  private index?: Promise<LabelIndex>;

  constructor(
    private readonly store: MetricsReader,
    private readonly tenant: string,
    /** Told which resolutions (rollup tiers, raw samples) the queries read. */
    private readonly seen?: Resolutions,
  ) {}

  async select(matchers: Matcher[], start: number, end: number, windows?: WindowHint): Promise<SeriesRef[]> {
    this.index ??= labelIndex(this.store, this.tenant);
    const hits = (await this.index).matching(matchers, start, end);
    // Metrics with the same labels (e.g. a gauge and an availability of one id) are one series.
    const groups = new Map<string, IndexedSeries[]>();
    for (const h of hits) {
      const k = labelsKey(h.labels);
      const g = groups.get(k);
      if (g) g.push(h);
      else groups.set(k, [h]);
    }
    const sorted = [...groups.values()].sort((a, b) => compareLabels(a[0]!.labels, b[0]!.labels));
    // The series of one metric each are read through one reader in this order (the store may
    // look up several series' chunks at a time); merged ones are read metric by metric.
    const single = sorted.filter((g) => g.length === 1);
    const reader = single.length > 1 ? this.store.seriesReader?.(this.tenant, single.map((g) => g[0]!.entry), start, end + 1) : undefined;
    const at = new Map(single.map((g, i) => [g, i]));
    // Long windows of one gauge or counter each: through the rollup tiers.
    const tiered = single.filter((g) => g[0]!.entry.type !== "availability");
    const tiers = !this.seen?.rawOnly && tiersWorthReading(this.store, windows) ? new TierWindows(this.store, this.tenant, windows, tiered.map((g) => g[0]!.entry), this.seen) : undefined;
    const tierAt = new Map(tiered.map((g, i) => [g, i]));
    if (!tiers) this.seen?.add("raw");
    return sorted.map((g): StoreSeriesRef => {
      const i = reader ? at.get(g) : undefined;
      const k = tiers ? tierAt.get(g) : undefined;
      if (k !== undefined) {
        return {
          labels: g[0]!.labels,
          tiered: true,
          read: async (buffers) => {
            const w = await tiers!.read(k);
            if (w) return { ...withMarkersApart(g[0]!.labels, w.ts, w.vals), steps: w.steps };
            this.seen?.add("raw");
            return this.read(g, start, end, buffers);
          },
          parts: async () => undefined,
        };
      }
      return {
        labels: g[0]!.labels,
        read: (buffers) => (i === undefined ? this.read(g, start, end, buffers) : this.readOne(g[0]!, reader!.readSeries(i, buffers))),
        parts: () => this.parts(g, start, end, i === undefined ? undefined : () => reader!.readParts(i)),
      };
    });
  }

  /**
   * The samples of one series undecoded, for a worker (promql-offload.ts): only of a series of
   * one gauge or counter (availability and merged series are converted on read).
   */
  private async parts(g: IndexedSeries[], start: number, end: number, viaReader?: () => Promise<SeriesParts | undefined>): Promise<SeriesParts | undefined> {
    const h = g[0]!;
    if (g.length !== 1 || h.entry.type === "availability" || !this.store.readParts) return undefined;
    return viaReader ? viaReader() : this.store.readParts(this.tenant, h.entry.type, h.entry.id, start, end + 1);
  }

  /** A series of one metric from its read (availability converted, staleness markers apart). */
  private async readOne(h: IndexedSeries, read: Promise<NumericSeries | undefined>): Promise<RawSeries | undefined> {
    const s = await read;
    if (!s || s.ts.length === 0) return undefined;
    return h.entry.type === "availability" ? knownAvailability(h.labels, s.ts, s.values) : withMarkersApart(h.labels, s.ts, s.values);
  }

  /**
   * The samples in [start, end] of one series (of the metrics that share its labels). Only a
   * series of one metric is read into `buffers`: merged ones are copied anyway.
   */
  private async read(g: IndexedSeries[], start: number, end: number, buffers?: ReadBuffers): Promise<RawSeries | undefined> {
    const parts: RawSeries[] = [];
    for (const h of g) {
      const s = await this.store.readSeries(this.tenant, h.entry.type, h.entry.id, start, end + 1, g.length === 1 ? buffers : undefined);
      if (!s || s.ts.length === 0) continue;
      parts.push(h.entry.type === "availability" ? knownAvailability(h.labels, s.ts, s.values) : { labels: h.labels, ts: s.ts, vals: s.values });
    }
    if (parts.length <= 1) return parts[0] && withMarkersApart(parts[0].labels, parts[0].ts, parts[0].vals);
    const merged = mergeSeries(parts);
    return withMarkersApart(merged.labels, merged.ts, merged.vals);
  }
}

/** Availability as 1/0, unknown points left out. */
function knownAvailability(labels: Labels, ts: Float64Array, values: Float64Array): RawSeries {
  const keep: number[] = [];
  for (let i = 0; i < ts.length; i++) if (values[i] !== AVAILABILITY_CODE.unknown) keep.push(i);
  return {
    labels,
    ts: Float64Array.from(keep, (i) => ts[i]!),
    vals: Float64Array.from(keep, (i) => (values[i] === AVAILABILITY_CODE.up ? 1 : 0)),
  };
}

/** Time-ordered union of series with the same labels; on equal timestamps the first wins. */
function mergeSeries(parts: RawSeries[]): RawSeries {
  const points: [number, number][] = [];
  const seen = new Set<number>();
  for (const p of parts) {
    for (let i = 0; i < p.ts.length; i++) {
      if (seen.has(p.ts[i]!)) continue;
      seen.add(p.ts[i]!);
      points.push([p.ts[i]!, p.vals[i]!]);
    }
  }
  points.sort((a, b) => a[0] - b[0]);
  return { labels: parts[0]!.labels, ts: Float64Array.from(points, (p) => p[0]), vals: Float64Array.from(points, (p) => p[1]) };
}
