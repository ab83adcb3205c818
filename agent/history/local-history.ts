import type { Database } from "bun:sqlite";
import type { Decoder } from "cbor-x";
import type { MetricDefinition, MetricType, Tags } from "../../src/metrics/model.ts";
import type { MetricFilter, MetricsReader, NumericSeries, PointColumns, RawQuery, SeriesEntry } from "../../src/metrics/reader.ts";
import { emptyRun, mergeRuns, type Run, sliceRun } from "../../src/metrics/run.ts";
import { runColumns } from "../../src/metrics/run-columns.ts";
import { BufferedRows, type ParsedRow, pieceRun, seriesKey } from "./buffered-rows.ts";

interface Known {
  type: MetricType;
  id: string;
  tags?: Tags;
  minTs: number;
  maxTs: number;
}

/**
 * The agent's own points, read as the collector's store reads its own (docs/storage.md, "The
 * agent's local history"): every buffered row, the local window's acknowledged ones and the
 * backlog alike, merged per series with the latest write of a timestamp winning. It answers
 * the agent's tenant only; the read routes and the Prometheus API on top of it are the
 * collector's own (src/http/metrics/, src/http/prometheus/).
 */
export class LocalHistory implements MetricsReader {
  private readonly rows: BufferedRows;

  constructor(
    db: Database,
    dec: Decoder,
    private readonly tenant: string,
    /** The window, reported as every metric's data retention (in days). */
    private readonly retentionDays: number,
  ) {
    this.rows = new BufferedRows(db, dec);
  }

  /** Every series the rows hold, with the tags their latest definition gave. */
  private known(rows: readonly ParsedRow[]): Map<string, Known> {
    const out = new Map<string, Known>();
    const tags = new Map<string, Tags>();
    for (const r of rows) {
      for (const d of r.definitions ?? []) tags.set(seriesKey(d.type, d.id), d.tags);
      for (const [key, piece] of r.series) {
        const k = out.get(key);
        if (k) {
          k.minTs = Math.min(k.minTs, piece.minTs);
          k.maxTs = Math.max(k.maxTs, piece.maxTs);
        } else {
          const [type, id] = key.split("\u0000") as [MetricType, string];
          out.set(key, { type, id, minTs: piece.minTs, maxTs: piece.maxTs });
        }
      }
    }
    for (const [key, t] of tags) {
      const k = out.get(key);
      if (k && Object.keys(t).length > 0) k.tags = t;
    }
    return out;
  }

  private definition(k: Known): MetricDefinition {
    const d: MetricDefinition = { tenantId: this.tenant, id: k.id, type: k.type, dataRetention: this.retentionDays, minTimestamp: k.minTs, maxTimestamp: k.maxTs };
    if (k.tags) d.tags = { ...k.tags };
    return d;
  }

  async getMetric(tenant: string, type: MetricType, id: string): Promise<MetricDefinition | undefined> {
    if (tenant !== this.tenant) return undefined;
    const k = this.known(this.rows.rows()).get(seriesKey(type, id));
    return k && this.definition(k);
  }

  async findMetrics(tenant: string, filter: MetricFilter = {}): Promise<MetricDefinition[]> {
    if (tenant !== this.tenant) return [];
    const ids = filter.ids && new Set(filter.ids);
    return [...this.known(this.rows.rows()).values()]
      .filter((k) => (!filter.type || k.type === filter.type) && (!ids || ids.has(k.id)))
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : a.type < b.type ? -1 : 1))
      .map((k) => this.definition(k));
  }

  async listSeries(tenant: string): Promise<SeriesEntry[]> {
    if (tenant !== this.tenant) return [];
    return [...this.known(this.rows.rows()).values()].map((k) => ({ type: k.type, id: k.id, tags: k.tags, minTs: k.minTs, maxTs: k.maxTs }));
  }

  /** The series' points in [start, end), merged over the rows in write order. */
  private run(type: MetricType, id: string, start: number, end: number): Run | undefined {
    const key = seriesKey(type, id);
    const runs: Run[] = [];
    let found = false;
    for (const r of this.rows.rows()) {
      const piece = r.series.get(key);
      if (!piece) continue;
      found = true;
      if (piece.maxTs < start || piece.minTs >= end) continue;
      runs.push(pieceRun(piece, type));
    }
    if (!found) return undefined;
    const numeric = type !== "string";
    return runs.length === 0 ? emptyRun(numeric) : sliceRun(mergeRuns(runs, numeric), start, end);
  }

  async readRaw(tenant: string, type: MetricType, id: string, q: RawQuery): Promise<PointColumns> {
    const run = tenant === this.tenant ? this.run(type, id, q.start, q.end) : undefined;
    return run ? runColumns(run, type, q) : { ts: [], values: [] };
  }

  async readSeries(tenant: string, type: MetricType, id: string, start: number, end: number): Promise<NumericSeries | undefined> {
    if (tenant !== this.tenant || type === "string") return undefined;
    const run = this.run(type, id, start, end);
    return run && { ts: run.ts, values: run.nums!, tags: run.tags };
  }
}
