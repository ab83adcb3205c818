import type { Database } from "bun:sqlite";
import type { Decoder } from "cbor-x";
import { decodePoints } from "../../src/codec/index.ts";
import { AVAILABILITY_CODE, type Availability, type DataPoint, type MetricType, type MetricWrite, type Tags } from "../../src/metrics/model.ts";
import type { Run } from "../../src/metrics/run.ts";
import { decodeDefinitionsChunk, type SeriesDefinition } from "../../src/protocol/definitions-chunk.ts";
import { CHUNK_FORMAT, MARKERS_FLAG } from "../../src/protocol/series-chunk.ts";

/** One series' points in one row: a codec block (compacted rows), or points (rows as written). */
export interface SeriesPiece {
  minTs: number;
  maxTs: number;
  block?: Uint8Array;
  points?: DataPoint[];
}

/** A row of the buffer as reads see it: its series and the definitions it carries. */
export interface ParsedRow {
  id: number;
  bytes: number;
  /** `type \0 id` → the series' points in this row. */
  series: Map<string, SeriesPiece>;
  definitions?: SeriesDefinition[];
}

export const seriesKey = (type: MetricType, id: string) => `${type}\u0000${id}`;

/** Rows parsed at most this many bytes (of bodies) are kept between reads; beyond, reads parse again. */
const CACHE_BYTES = 64 * 1024 * 1024;

/**
 * The rows of the agent's buffer (the backlog and the local window's acknowledged rows, both in
 * `chunks`: agent/buffer/acked-ranges.ts) in write order, each parsed once: compacted rows to one codec block per series (decoded only
 * when read), rows as written to their points. A row never changes under its id (compaction
 * writes merged rows under new ids), so a parsed row is valid while its id and size are.
 */
export class BufferedRows {
  private readonly cache = new Map<number, ParsedRow>();
  private readonly q;

  constructor(
    db: Database,
    private readonly dec: Decoder,
  ) {
    this.q = {
      heads: db.query<{ id: number; fmt: number; bytes: number }, []>("SELECT id, fmt, bytes FROM chunks ORDER BY id"),
      body: db.query<{ body: Uint8Array }, [number]>("SELECT body FROM chunks WHERE id = ?"),
    };
  }

  /** Every row now, oldest first. */
  rows(): ParsedRow[] {
    const heads = this.q.heads.all();
    const out: ParsedRow[] = [];
    const live = new Set<number>();
    let cached = 0;
    for (const h of heads) {
      live.add(h.id);
      let row = this.cache.get(h.id);
      if (!row || row.bytes !== h.bytes) {
        row = this.parse(h.id, h.fmt, h.bytes);
        if (!row) continue;
        if (cached + h.bytes <= CACHE_BYTES) this.cache.set(h.id, row);
      }
      cached += h.bytes;
      out.push(row);
    }
    for (const id of this.cache.keys()) if (!live.has(id)) this.cache.delete(id);
    return out;
  }

  private parse(id: number, fmt: number, bytes: number): ParsedRow | undefined {
    const body = this.q.body.get(id)?.body;
    if (!body) return undefined;
    const row: ParsedRow = { id, bytes, series: new Map() };
    const format = fmt & ~MARKERS_FLAG;
    try {
      if (format === CHUNK_FORMAT.definitions) row.definitions = decodeDefinitionsChunk(this.dec, body);
      else if (format === CHUNK_FORMAT.series) this.parseSeries(row, body);
      else if (format === CHUNK_FORMAT.cbor) this.parseWrites(row, this.dec.decode(body) as MetricWrite[]);
    } catch {
      // A row that cannot be read is no history (the collector refuses it the same way).
      return row;
    }
    return row;
  }

  private parseSeries(row: ParsedRow, body: Uint8Array): void {
    const entries = this.dec.decode(body) as [MetricType, string, Uint8Array][];
    for (const [type, id, block] of entries) {
      const d = decodePoints(block);
      if (d.ts.length === 0) continue;
      let min = d.ts[0]!;
      let max = min;
      for (let i = 1; i < d.ts.length; i++) {
        const t = d.ts[i]!;
        if (t < min) min = t;
        if (t > max) max = t;
      }
      row.series.set(seriesKey(type, id), { minTs: min, maxTs: max, block });
    }
  }

  private parseWrites(row: ParsedRow, writes: MetricWrite[]): void {
    for (const w of writes) {
      if (w.points.length === 0) continue;
      const key = seriesKey(w.type, w.id);
      const piece = row.series.get(key) ?? { minTs: Number.POSITIVE_INFINITY, maxTs: Number.NEGATIVE_INFINITY, points: [] };
      for (const p of w.points) {
        piece.points!.push(p);
        if (p.timestamp < piece.minTs) piece.minTs = p.timestamp;
        if (p.timestamp > piece.maxTs) piece.maxTs = p.timestamp;
      }
      row.series.set(key, piece);
    }
  }
}

/**
 * A piece as a run (sorted, one point per timestamp: the latest written wins), availability as
 * its numeric codes, as the collector's stores keep them.
 */
export function pieceRun(piece: SeriesPiece, type: MetricType): Run {
  const numeric = type !== "string";
  let ts: Float64Array;
  let nums: Float64Array | undefined;
  let strs: string[] | undefined;
  let tags: (Tags | undefined)[] | undefined;
  if (piece.block) {
    const d = decodePoints(piece.block);
    ts = d.ts;
    nums = d.nums;
    strs = d.strs;
    tags = d.tags;
  } else {
    const pts = piece.points!;
    ts = Float64Array.from(pts, (p) => p.timestamp);
    if (numeric) nums = Float64Array.from(pts, (p) => (type === "availability" ? AVAILABILITY_CODE[String(p.value) as Availability] : Number(p.value)));
    else strs = pts.map((p) => String(p.value));
    if (pts.some((p) => p.tags)) tags = pts.map((p) => p.tags);
  }
  return sortedRun({ ts, nums, strs, tags });
}

/** Sorts a run by timestamp, keeping the last of equal timestamps (write order breaks ties). */
function sortedRun(r: Run): Run {
  const n = r.ts.length;
  let ordered = true;
  for (let i = 1; i < n && ordered; i++) if (r.ts[i]! <= r.ts[i - 1]!) ordered = false;
  if (ordered) return r;
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => r.ts[a]! - r.ts[b]! || a - b);
  const keep: number[] = [];
  for (let k = 0; k < n; k++) {
    const i = order[k]!;
    if (k + 1 < n && r.ts[order[k + 1]!] === r.ts[i]) continue;
    keep.push(i);
  }
  return {
    ts: Float64Array.from(keep, (i) => r.ts[i]!),
    nums: r.nums ? Float64Array.from(keep, (i) => r.nums![i]!) : undefined,
    strs: r.strs ? keep.map((i) => r.strs![i]!) : undefined,
    tags: r.tags ? keep.map((i) => r.tags![i]) : undefined,
  };
}
