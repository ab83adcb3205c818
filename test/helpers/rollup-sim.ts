/**
 * A series' rollups computed as the stores compute them (SeriesRoll over batches of chunks),
 * with the chunks and blocks kept in memory: the pure arithmetic of the tiers checked against
 * raw points without a database (test/metrics/rollup/).
 */
import { decodeRows, storedBody } from "../../src/metrics/rollup/block-segments.ts";
import { ByteWriter } from "../../src/codec/bytes.ts";
import type { RowLookup } from "../../src/metrics/rollup/cover.ts";
import { lowerBound, type RawSpan, SeriesRoll } from "../../src/metrics/rollup/roll.ts";
import type { RollScratch } from "../../src/metrics/rollup/rows-builder.ts";
import type { RollupKind, Rows } from "../../src/metrics/rollup/rows.ts";
import { blockSpan, type RollupTier } from "../../src/metrics/rollup/tiers.ts";

export const TEST_TIERS: RollupTier[] = [
  { step: 300_000, retention: 365 * 86_400_000, blockBuckets: 288, name: "5m" },
  { step: 3_600_000, retention: 1825 * 86_400_000, blockBuckets: 288, name: "1h" },
  { step: 86_400_000, retention: 3650 * 86_400_000, blockBuckets: 32, name: "1d" },
];

export interface SimChunk {
  cid: number;
  ts: number[];
  vals: number[];
  expires: number;
}

export class RollupSim implements RowLookup {
  readonly chunks: SimChunk[] = [];
  readonly blocks = new Map<string, Rows>();
  /** The blocks as encoded. */
  readonly bytes = new Map<string, Uint8Array>();
  mark = 0;
  now = 1;

  constructor(
    readonly kind: RollupKind,
    readonly tiers: RollupTier[] = TEST_TIERS,
    /** Roll as the SQLite roller does: blocks decoded into, and built in, reused memory, encoded into one writer. */
    readonly reuse?: { scratch: RollScratch; writer: ByteWriter },
  ) {}

  /** Seals a chunk (points in any order; the last of a timestamp wins within it). */
  seal(points: [number, number][], expires = Number.MAX_SAFE_INTEGER): void {
    const m = new Map<number, number>();
    for (const [t, v] of points) m.set(t, v);
    const ts = [...m.keys()].sort((a, b) => a - b);
    this.chunks.push({ cid: this.chunks.length + 1, ts, vals: ts.map((t) => m.get(t)!), expires });
  }

  /** Points of the stored, unexpired chunks with mark in (from, to], the later chunk winning, in [lo, hi). */
  merged(from: number, to: number, lo = -Infinity, hi = Infinity, withExpired = false): { ts: Float64Array; vals: Float64Array; used: SimChunk[] } {
    const m = new Map<number, number>();
    const used: SimChunk[] = [];
    for (const c of this.chunks) {
      if (c.cid <= from || c.cid > to || (!withExpired && c.expires <= this.now)) continue;
      let any = false;
      c.ts.forEach((t, i) => {
        if (t >= lo && t < hi) {
          m.set(t, c.vals[i]!);
          any = true;
        }
      });
      if (any || (c.ts[0]! < hi && c.ts.at(-1)! >= lo)) used.push(c);
    }
    const ts = Float64Array.from([...m.keys()].sort((a, b) => a - b));
    return { ts, vals: ts.map((t) => m.get(t)!), used };
  }

  /** Rolls up every chunk sealed since the last call, `batch` chunks at a time. */
  roll(batch = 1): void {
    while (this.mark < this.chunks.length) {
      const end = Math.min(this.chunks.length, this.mark + batch);
      const reuse = this.reuse;
      reuse?.scratch.reset();
      const pts = this.merged(this.mark, end, -Infinity, Infinity, true);
      const r = new SeriesRoll(this.kind, this.tiers, this.tiers.map((_, k) => k), { ts: pts.ts, vals: pts.vals }, this.now, reuse?.scratch);
      for (const ref of r.blocksNeeded()) {
        const key = `${ref.tier}:${ref.start}`;
        const bytes = this.bytes.get(key);
        const step = this.tiers[ref.tier]!.step;
        r.loaded(ref, reuse ? bytes && decodeRows(bytes, ref.start, step, reuse.scratch.floats.take) : this.blocks.get(key));
      }
      const raw: RawSpan[] = r.planRaw().map(([lo, hi]) => {
        const got = this.merged(0, end, lo, hi);
        return { lo, hi, ts: got.ts, vals: got.vals, chunks: got.used.map((c) => ({ start: c.ts[0]!, end: c.ts.at(-1)!, expires: c.expires })) };
      });
      for (const ch of r.compute(raw)) {
        const key = `${ch.tier}:${ch.start}`;
        if (ch.rows.n === 0) {
          this.blocks.delete(key);
          this.bytes.delete(key);
        } else {
          // Through the block codec, as a store keeps them.
          const t = this.tiers[ch.tier]!;
          // Appended to the stored bytes as a store does (block-segments.ts).
          const bytes = storedBody(ch.rows, ch.from, this.bytes.get(key), ch.start, t.step, reuse?.writer ?? new ByteWriter()).slice();
          this.bytes.set(key, bytes);
          this.blocks.set(key, decodeRows(bytes, ch.start, t.step));
        }
      }
      this.mark = end;
    }
  }

  row(k: number, a: number) {
    const t = this.tiers[k]!;
    const span = blockSpan(t);
    const start = Math.floor(a / span) * span;
    const rows = this.blocks.get(`${k}:${start}`);
    if (!rows) return undefined;
    const idx = (a - start) / t.step;
    const j = lowerBound(rows.idx, idx);
    return j < rows.n && rows.idx[j] === idx ? { rows, j } : undefined;
  }

  pending(lo: number, hi: number): boolean {
    for (const c of this.chunks) if (c.cid > this.mark && c.expires > this.now && c.ts.some((t) => t >= lo && t < hi)) return true;
    return false;
  }

  empty(lo: number, hi: number): boolean {
    if (this.pending(lo, hi)) return false;
    for (let k = 0; k < this.tiers.length; k++) {
      const span = blockSpan(this.tiers[k]!);
      for (let s = Math.floor(lo / span) * span; s < hi; s += span) if (this.blocks.has(`${k}:${s}`)) return false;
    }
    return true;
  }
}
