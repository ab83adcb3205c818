import type { Database, Statement } from "bun:sqlite";
import { DAY_MS } from "../../../../src/metrics/model.ts";
import type { RollupKind } from "../../../../src/metrics/rollup/rows.ts";
import type { CachedChunk } from "../chunk-cache.ts";
import type { ChunkBlobs } from "../chunk-codec.ts";

/**
 * What the roller reads of metrics.db to compute a series' blocks, on the store's own
 * connection (the chunk cache consulted first) or on a worker's (rollup-worker.ts). Both only
 * read here; every write (blocks, marks) is the store's, on its connection.
 */

/** A series as the roller computes it. */
export interface RolledSeries {
  sid: number;
  kind: RollupKind;
  /** Its retention: chunks of the first layout expire by their newest timestamp plus this. */
  retentionMs: number;
}

export interface ChunkRow extends ChunkBlobs {
  format: number;
  n: number;
  body: Uint8Array | null;
}

export interface ChunkSourceHooks {
  /** The copy the store holds already (its chunk cache), if any. */
  cached?: (cid: number) => CachedChunk | undefined;
  /** A chunk that does not decode: left out of the tiers. */
  corrupt: (sid: number, cid: number, why: string) => void;
  now: () => number;
}

export class ChunkSource {
  private readonly selectChunk: Statement;
  private readonly span: Statement;
  private readonly blockSt: Statement;
  private readonly markSt: Statement;
  private readonly chunksSt: Statement;
  /** Rows pointsOf read during the step, until row() takes them. */
  private readonly held = new Map<number, ChunkRow>();

  constructor(
    db: Database,
    private readonly hooks: ChunkSourceHooks,
  ) {
    this.selectChunk = db.prepare("SELECT format, n, body, ts, vals, tags FROM chunks WHERE cid = ?");
    // Neither of the series' chunk queries sorts in SQL: rows come from the series index (by
    // start), and a sort of a handful of ids here is cheaper than SQLite's temporary B-tree (about
    // 5 µs a query, half of the roller's step reads with 50,000 series; issue 28).
    this.span = db.prepare(
      "SELECT cid, start_ts, end_ts, coalesce(expires_at, end_ts + ?) AS e FROM chunks WHERE sid = ? AND start_ts >= ? AND start_ts < ? AND end_ts >= ? AND cid <= ?",
    );
    this.blockSt = db.prepare("SELECT body FROM rollups WHERE sid = ? AND step = ? AND block_start = ?");
    this.markSt = db.prepare("SELECT mark FROM rollup_series_marks WHERE sid = ?");
    // From the series index alone (covering): a chunk's points are counted from its row, which
    // the step reads anyway to decode it (pointsOf), rather than once more here.
    this.chunksSt = db.prepare("SELECT cid, coalesce(expires_at, 0) FROM chunks WHERE sid = ? AND start_ts >= ? AND cid > ? AND cid <= ?");
  }

  now(): number {
    return this.hooks.now();
  }

  cached(cid: number): CachedChunk | undefined {
    return this.hooks.cached?.(cid);
  }

  corrupt(sid: number, cid: number, why: string): void {
    this.hooks.corrupt(sid, cid, why);
  }

  /** A chunk's row: the one pointsOf read for this step, if it did, else read now. */
  row(cid: number): ChunkRow | null {
    const held = this.held.get(cid);
    if (held) {
      this.held.delete(cid);
      return held;
    }
    return this.selectChunk.get(cid) as ChunkRow | null;
  }

  /**
   * The points a chunk holds (as its row says): from the cached copy, else from its row, kept
   * for the step's row() (undefined: the chunk is gone). Rows kept and not taken are let go by
   * the next releaseRows().
   */
  pointsOf(cid: number): number | undefined {
    const cached = this.cached(cid);
    if (cached) return cached.n;
    const row = this.selectChunk.get(cid) as ChunkRow | null;
    if (!row) return undefined;
    this.held.set(cid, row);
    return row.n;
  }

  /** Lets go of the rows pointsOf kept that no row() took (a step starts). */
  releaseRows(): void {
    this.held.clear();
  }

  /** [cid, start, end, expires] of the series' chunks up to `upTo` that may hold points of [lo, hi), in write order. */
  spanChunks(series: RolledSeries, lo: number, hi: number, upTo: number): [number, number, number, number][] {
    return byFirst(this.span.values(series.retentionMs, series.sid, lo - DAY_MS, hi, lo, upTo) as [number, number, number, number][]);
  }

  /** A stored rollup block's bytes. */
  block(sid: number, step: number, start: number): Uint8Array | undefined {
    return (this.blockSt.get(sid, step, start) as { body: Uint8Array } | null)?.body;
  }

  /** The last chunk of the series rolled up in the open window (0: none). */
  seriesMark(sid: number): number {
    return (this.markSt.get(sid) as { mark: number } | null)?.mark ?? 0;
  }

  /**
   * [cid, expires] of the series' chunks in (after, upTo], in id order; `from` is a start no
   * such chunk is before (the series index is read from there, not from its first chunk).
   */
  seriesChunks(sid: number, after: number, upTo: number, from: number): [number, number][] {
    return byFirst(this.chunksSt.values(sid, from, after, upTo) as [number, number][]);
  }
}

/** Rows sorted by their first column (chunk ids; usually in order already). */
function byFirst<R extends number[]>(rows: R[]): R[] {
  for (let i = 1; i < rows.length; i++) if (rows[i]![0]! < rows[i - 1]![0]!) return rows.sort((a, b) => a[0]! - b[0]!);
  return rows;
}
