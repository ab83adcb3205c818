import type { MetricWrite, Tags } from "../../../src/metrics/model.ts";
import type { HostMetricSpec, HostScope } from "./catalog.ts";
import type { SeriesSelection } from "./selection.ts";

/** A resource of the host that series belong to: the host itself, or one CPU, disk, filesystem, interface. */
export interface HostResource {
  scope: HostScope;
  /** "" for the host; else the instance as the kernel names it (cpu0, vda, /boot, eth0). */
  instance: string;
  /** Facts that identify the resource (device, filesystem type), kept stable between samples. */
  properties?: Record<string, string>;
}

/** One time series the agent collects: a metric id with its definition. */
export interface HostSeries {
  /** `<feed>:<key>` */
  id: string;
  /** `name`, `name:instance` or `name:instance:dimension`, instance and dimension as id tokens. */
  key: string;
  spec: HostMetricSpec;
  resource: HostResource;
  /** Tags for the metric's definition. */
  tags: Tags;
}

/**
 * An instance as an id token: a mount point loses its leading slash and `/` becomes `_`
 * (`/` itself is `root`); characters other than letters, digits, `_`, `.` and `-` become `_`.
 */
export function instanceToken(instance: string): string {
  if (instance === "/") return "root";
  const t = instance.replace(/^\/+/, "").replace(/[^A-Za-z0-9_.-]/g, "_");
  return t === "" ? "_" : t;
}

/** Series known from earlier samples (null: not selected), with the last sample that saw them. */
export type SeriesCache = Map<string, { series: HostSeries | null; seen: number }>;

/**
 * Collects one sample's points: each `emit` checks the selection, registers the series (cached
 * across samples so ids and tags are built once) and adds the point.
 */
export class SampleBuilder {
  readonly writes: MetricWrite[] = [];
  readonly series: HostSeries[] = [];

  constructor(
    private readonly feed: string,
    private readonly selection: SeriesSelection,
    private readonly cache: SeriesCache,
    private readonly generation: number,
    readonly timestamp: number,
  ) {}

  /** Forgets series not seen in this sample, so interfaces or mounts that come and go do not accumulate. */
  pruneCache(): void {
    for (const [key, entry] of this.cache) if (entry.seen !== this.generation) this.cache.delete(key);
  }

  /**
   * Records `value` for the series; an undefined value (e.g. a rate's first sample) still
   * declares the series, so the inventory does not change when the value appears.
   */
  emit(spec: HostMetricSpec, resource: HostResource, value: number | undefined, dimension?: string): void {
    const series = this.lookup(spec, resource, dimension);
    if (!series) return;
    this.series.push(series);
    if (value === undefined || !Number.isFinite(value)) return;
    const v = spec.kind === "counter" ? Math.round(value) : value;
    this.writes.push({ type: spec.kind, id: series.id, points: [{ timestamp: this.timestamp, value: v }] });
  }

  private lookup(spec: HostMetricSpec, resource: HostResource, dimension: string | undefined): HostSeries | null {
    const instance = spec.instanceTag === undefined ? "" : resource.instance || "total";
    let key = spec.name;
    if (spec.instanceTag !== undefined) key += `:${instanceToken(instance)}`;
    if (dimension !== undefined) key += `:${instanceToken(dimension)}`;
    const cached = this.cache.get(key);
    if (cached !== undefined) {
      cached.seen = this.generation;
      // The resource's properties (e.g. the device of a mount point) may change under a stable key.
      if (cached.series) cached.series.resource = resource;
      return cached.series;
    }
    if (!this.selection.includes(key)) {
      this.cache.set(key, { series: null, seen: this.generation });
      return null;
    }
    const tags: Tags = { feed: this.feed, metric: spec.name };
    if (spec.instanceTag !== undefined) tags[spec.instanceTag] = instance;
    if (spec.dimensionTag !== undefined && dimension !== undefined) tags[spec.dimensionTag] = dimension;
    const series: HostSeries = { id: `${this.feed}:${key}`, key, spec, resource, tags };
    this.cache.set(key, { series, seen: this.generation });
    return series;
  }
}

/**
 * A computed percentage to 0.01: finer than sampling can tell, and a short decimal costs the
 * point codec about a bit per point where a full float64 ratio costs 7 bytes (docs/storage.md).
 */
export function percent(part: number, whole: number): number {
  return Math.round((part / whole) * 10_000) / 100;
}
