/**
 * The scrape of one target, every interval, as Prometheus scrapes it: at a fixed offset within
 * the interval (spread by a hash of the target, so targets do not all fire at once), samples
 * stamped with the scrape's time (or their own, with honor_timestamps), the target's labels
 * joined, metric relabelling, and per target `up`, `scrape_duration_seconds`,
 * `scrape_samples_scraped`, `scrape_samples_post_metric_relabeling` and `scrape_series_added`.
 *
 * Each series text seen is kept with its id (series-cache.ts, the cache Prometheus keeps too),
 * so a known series costs a lookup, not a label parse. A series that vanishes from the target,
 * or all of them when the target goes down or is removed, gets a staleness marker at the scrape
 * that missed it, as in Prometheus (series with their own timestamps excepted).
 */
import { fnv1a } from "../../../src/codec/fnv.ts";
import type { Logger } from "../../../src/log/logger.ts";
import { metricIdProblem, tagsProblem } from "../../../src/metrics/limits.ts";
import type { MetricWrite } from "../../../src/metrics/model.ts";
import type { ScrapeJobConfig } from "../../../src/agent-config/inputs.ts";
import { ExpositionError, type FamilyTypes, parseExposition, parseSeries } from "../../../src/prometheus/exposition.ts";
import { relabel } from "../../../src/prometheus/relabel.ts";
import { joinTargetLabels } from "../../../src/prometheus/target-labels.ts";
import type { SeriesDefinition } from "../../../src/protocol/definitions-chunk.ts";
import { type DefinitionLedger, defineSeries, type InputSink } from "../series-output.ts";
import type { InputCounters } from "../input-telemetry.ts";
import { fetchTarget, ScrapeError } from "./fetch-target.ts";
import { SeriesCache } from "./series-cache.ts";

export interface ScrapeTarget {
  job: ScrapeJobConfig;
  /** host:port */
  address: string;
  /** The target's labels: job, instance, and those of its static list or file. */
  labels: Record<string, string>;
  url: string;
}

export type Health = "unknown" | "up" | "down";

export interface TargetStatus {
  job: string;
  instance: string;
  url: string;
  health: Health;
  lastError?: string;
  /** ms */
  lastScrape?: number;
  lastDurationSeconds?: number;
  samples: number;
}

export interface LoopDeps {
  feed: string;
  ledger: DefinitionLedger;
  sink: InputSink;
  counters: InputCounters;
  /** Lets a warning about this target through at most once a minute. */
  warn(target: string, message: string, fields: Record<string, unknown>): void;
  log: Logger;
  /** The staleness marker, when the collector path can carry it (undefined: none are sent). */
  staleMarker?: number;
  now?: () => number;
}

/** One of the target's own series (`up`, `scrape_*`): whether the buffer holds its definition. */
interface ReportEntry {
  defGen: number;
}

const REPORT_SERIES = ["up", "scrape_duration_seconds", "scrape_samples_scraped", "scrape_samples_post_metric_relabeling", "scrape_series_added"] as const;

export class ScrapeLoop {
  readonly status: TargetStatus;
  private readonly cache = new SeriesCache();
  private readonly report = new Map<string, [ReportEntry, SeriesDefinition]>();
  private readonly targetLabels: Record<string, string>;
  private readonly offset: number;
  private readonly now: () => number;
  private gen = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private lastStamp = 0;

  constructor(
    readonly target: ScrapeTarget,
    private readonly d: LoopDeps,
  ) {
    this.now = d.now ?? Date.now;
    this.targetLabels = { ...target.labels, feed: d.feed };
    // A stable spread of targets over the interval.
    const key = `${d.feed}\u0000${target.job.job}\u0000${target.url}`;
    this.offset = fnv1a(key, 0, key.length) % target.job.intervalMs;
    this.status = { job: target.job.job, instance: target.labels.instance ?? target.address, url: target.url, health: "unknown", samples: 0 };
  }

  start(): void {
    this.schedule();
  }

  /** The next scrape time: a multiple of the interval plus this target's offset. */
  private nextStamp(now: number): number {
    const iv = this.target.job.intervalMs;
    return Math.floor((now - this.offset) / iv) * iv + this.offset + iv;
  }

  private schedule(): void {
    if (this.stopped) return;
    const at = this.nextStamp(Math.max(this.now(), this.lastStamp));
    this.timer = setTimeout(() => {
      // A timer may fire a little early: never scrape before the time it stamps.
      if (this.now() < at) return this.schedule();
      this.lastStamp = at;
      this.running = this.scrape(at).finally(() => {
        this.running = undefined;
        this.schedule();
      });
    }, Math.max(0, at - this.now()));
  }

  /**
   * Stops scraping. A target that is gone (removed from the configuration or its file) has
   * every series ended with a staleness marker, its own `up` and `scrape_*` series included.
   */
  async stop(removed: boolean): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
    if (!removed || this.d.staleMarker === undefined || this.gen === 0) return;
    const stamp = Math.max(this.now(), this.lastStamp + 1);
    this.gen++;
    const writes: MetricWrite[] = [];
    this.markVanished(writes, stamp);
    for (const [, def] of this.report.values()) writes.push({ type: "gauge", id: def.id, points: [{ timestamp: stamp, value: this.d.staleMarker }] });
    await this.d.sink(writes).catch((e) => this.d.log.warn("could not buffer the staleness markers of a removed target", { err: (e as Error).message }));
  }

  /** One scrape, stamped `stamp`; never throws. */
  async scrape(stamp: number): Promise<void> {
    const job = this.target.job;
    const gen = ++this.gen;
    const started = performance.now();
    const writes: MetricWrite[] = [];
    const cache = this.cache;
    // Entries whose definition goes with this scrape's points (series first seen bring theirs),
    // the report's own; and the entries touched, with what each had before (pairs of numbers).
    const defined: [number, SeriesDefinition][] = [];
    const reported: ReportEntry[] = [];
    const fresh = new Map<number, SeriesDefinition>();
    const touched: number[] = [];
    const ledgerGen = this.d.ledger.generation;
    let scraped = 0;
    let kept = 0;
    let added = 0;
    let invalid = 0;
    let firstInvalid: { line: number; text: string; reason: string } | undefined;
    let error: string | undefined;
    const rejectLine = (line: number, text: string, reason: string) => {
      invalid++;
      firstInvalid ??= { line, text, reason };
    };
    try {
      const fetched = await fetchTarget({ url: this.target.url, timeoutMs: job.timeoutMs, bodySizeLimit: job.bodySizeLimit, basicAuth: job.basicAuth, bearerTokenFile: job.bearerTokenFile, caFile: job.caFile, serverName: job.serverName });
      this.d.counters.bytes.inc(fetched.bytes);
      const types: FamilyTypes = new Map();
      const sample = (body: string, start: number, end: number, value: number, ts: number | undefined) => {
        scraped++;
        let e = cache.find(body, start, end);
        if (e < 0) {
          let def: SeriesDefinition | undefined;
          try {
            def = this.define(body.slice(start, end), types);
          } catch (err) {
            if (!(err instanceof ExpositionError)) throw err;
            return rejectLine(0, body.slice(start, end), err.message);
          }
          e = cache.add(body, start, end, def?.id);
          if (def) {
            added++;
            fresh.set(e, def);
          }
        }
        // The same series twice in one body: the first counts, as in Prometheus.
        if (cache.seen[e] === gen) return;
        touched.push(e, cache.seen[e]!);
        cache.seen[e] = gen;
        const id = cache.id(e);
        if (id === undefined) return;
        const explicit = ts !== undefined && job.honorTimestamps;
        cache.explicit[e] = explicit ? 1 : 0;
        kept++;
        // NaN and ±Inf are not stored (a NaN inside Outpost is the staleness marker).
        if (value - value !== 0) {
          this.d.counters.dropped.inc();
          return;
        }
        writes.push({ type: "gauge", id, points: [{ timestamp: explicit ? ts! : stamp, value }] });
        if (cache.defGen[e] !== ledgerGen) defined.push([e, fresh.get(e) ?? this.define(body.slice(start, end), types)!]);
      };
      parseExposition(fetched.body, fetched.format, { sample, invalid: rejectLine }, types);
      if (job.sampleLimit > 0 && kept > job.sampleLimit) throw new ScrapeError(`sample limit exceeded: ${kept} samples, at most ${job.sampleLimit}`);
    } catch (e) {
      if (!(e instanceof ScrapeError)) throw e;
      // A failed scrape counts as an empty one: every series ends.
      error = e.message;
      for (let i = 0; i < touched.length; i += 2) cache.seen[touched[i]!] = touched[i + 1]!;
      writes.length = 0;
      defined.length = 0;
      kept = 0;
      added = 0;
    }
    const duration = (performance.now() - started) / 1000;
    this.markVanished(writes, stamp);
    const values = [error ? 0 : 1, duration, scraped, kept, added];
    const definitions = defined.map(([, d]) => d);
    REPORT_SERIES.forEach((name, i) => {
      const [e, def] = this.reportEntry(name);
      writes.push({ type: "gauge", id: def.id, points: [{ timestamp: stamp, value: values[i]! }] });
      if (e.defGen !== ledgerGen) {
        reported.push(e);
        definitions.push(def);
      }
    });
    this.d.counters.samples.inc(kept);
    if (invalid > 0) {
      this.d.counters.errors.inc(invalid);
      const f = firstInvalid!;
      this.d.warn(this.target.url, "skipped lines of a scrape that do not parse", { job: job.job, target: this.target.url, lines: invalid, first: f.line || undefined, text: f.text.slice(0, 120), reason: f.reason });
    }
    if (error) {
      this.d.counters.errors.inc();
      this.d.warn(this.target.url, "scrape failed", { job: job.job, target: this.target.url, err: error });
    }
    Object.assign(this.status, { health: error ? "down" : "up", lastError: error, lastScrape: stamp, lastDurationSeconds: duration, samples: kept });
    try {
      await this.d.sink(writes, definitions);
      for (const [e] of defined) cache.defGen[e] = ledgerGen;
      for (const e of reported) e.defGen = ledgerGen;
    } catch (e) {
      this.d.counters.dropped.inc(writes.length);
      this.d.warn(this.target.url, "could not buffer a scrape's samples", { job: job.job, target: this.target.url, samples: writes.length, err: (e as Error).message });
    }
    // Last: forgetting series may renumber the cache's entries, which `defined` holds until here.
    this.prune(gen);
    cache.seal();
  }

  /** The definition of a series text (labels joined and relabelled); undefined when it is dropped. */
  private define(series: string, types: FamilyTypes): SeriesDefinition | undefined {
    const job = this.target.job;
    const p = parseSeries(series, types);
    const joined = joinTargetLabels(p.name, p.labels, this.targetLabels, job.honorLabels);
    const labels = relabel(joined, job.relabel);
    if (!labels?.__name__) return undefined;
    const def = defineSeries(labels);
    const problem = metricIdProblem(def.id) ?? tagsProblem(def.tags, "metric");
    if (problem) throw new ExpositionError(problem);
    return def;
  }

  private reportEntry(name: string): [ReportEntry, SeriesDefinition] {
    let r = this.report.get(name);
    if (!r) {
      const def = defineSeries(joinTargetLabels(name, [], this.targetLabels, false));
      this.report.set(name, (r = [{ defGen: 0 }, def]));
    }
    return r;
  }

  /** Markers for the series the previous scrape had and this one has not. */
  private markVanished(writes: MetricWrite[], stamp: number): void {
    const marker = this.d.staleMarker;
    if (marker === undefined) return;
    const c = this.cache;
    for (const e of c.entries()) {
      const id = c.id(e);
      if (id !== undefined && c.seen[e] === this.gen - 1 && !c.explicit[e]) writes.push({ type: "gauge", id, points: [{ timestamp: stamp, value: marker }] });
    }
  }

  /** Forgets series absent for two scrapes (their marker is written), so the cache follows the target. */
  private prune(gen: number): void {
    const seen = this.cache.seen;
    this.cache.remove((e) => seen[e]! < gen - 1);
  }
}
