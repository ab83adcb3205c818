/**
 * Reading series through the rollup tiers (docs/storage.md, "What each query reads"): for each
 * series and interval, which stored rows and which raw points give the answer raw points would
 * give (src/metrics/rollup/cover.ts), then those raw points. Blocks are asked for as the covers
 * need them: the coarsest tier first, finer ones only where the coarser has no usable row, so a
 * year-long chart reads the daily blocks and little else.
 */
import type { MetricType } from "../model.ts";
import { type RawPoints, rawPoints } from "./compose.ts";
import { type Cover, cover, type FoundRow, isRaw, type RowLookup } from "./cover.ts";
import { lowerBound } from "./roll.ts";
import type { Rows } from "./rows.ts";
import { blockSpan, type RollupTier } from "./tiers.ts";
import type { MetricsReader } from "../reader.ts";
import type { RollupSeriesInfo } from "./reads.ts";

/** Raw ranges closer than this are read as one (a chunk spans up to a day; one lookup instead of two). */
const MERGE_GAP_MS = 3_600_000;

export interface SeriesCovers {
  info: RollupSeriesInfo;
  /** Per interval. */
  covers: Cover[];
  /** Per interval: answered from raw points alone (then `raw` holds all of it). */
  whole: boolean[];
  /** The raw points read (of every raw piece, and of the intervals answered whole). */
  raw: RawPoints;
}

export interface TierReads {
  tiers: readonly RollupTier[];
  /** Per series, as asked; undefined for a series without rollups (unknown, strings). */
  series: (SeriesCovers | undefined)[];
  /** Which resolutions were read: tier names, coarsest first, then "raw". */
  resolution(): string;
}

/** Decides, once its cover is final, whether an interval [lo, hi) is answered from raw points alone. */
export type WholeRaw = (c: Cover, lo: number, hi: number) => boolean;

/** Rows of a block not loaded yet: usable as far as a first pass of the planner can tell. */
const UNKNOWN = { kind: 0, n: 1, srcExp: new Float64Array([Number.POSITIVE_INFINITY]), edge: new Float64Array(1), edgeV: new Float64Array(1) } as unknown as Rows;

class Lookup implements RowLookup {
  readonly wanted = new Map<string, { step: number; start: number }>();
  private lo = Number.POSITIVE_INFINITY;

  constructor(
    readonly tiers: readonly RollupTier[],
    readonly now: number,
    private readonly info: RollupSeriesInfo,
    private readonly blocks: Map<string, Rows | undefined>,
  ) {
    const p = info.pending;
    for (let i = 0; i < p.length; i += 2) if (p[i]! < this.lo) this.lo = p[i]!;
  }

  private block(k: number, start: number): Rows | undefined | null {
    const step = this.tiers[k]!.step;
    const key = `${step}:${start}`;
    if (this.blocks.has(key)) return this.blocks.get(key);
    this.wanted.set(key, { step, start });
    return null;
  }

  row(k: number, a: number): FoundRow | undefined {
    const t = this.tiers[k]!;
    const span = blockSpan(t);
    const start = Math.floor(a / span) * span;
    const rows = this.block(k, start);
    if (rows === null) return { rows: UNKNOWN, j: 0 };
    if (!rows) return undefined;
    const idx = (a - start) / t.step;
    const j = lowerBound(rows.idx, idx);
    return j < rows.n && rows.idx[j] === idx ? { rows, j } : undefined;
  }

  pending(lo: number, hi: number): boolean {
    const p = this.info.pending;
    for (let i = 0; i < p.length; i += 2) if (p[i]! < hi && p[i + 1]! > lo) return true;
    return false;
  }

  /** Known to hold no stored block at any tier, and nothing pending (blocks not loaded yet count as holding something). */
  empty(lo: number, hi: number): boolean {
    if (this.pending(lo, hi)) return false;
    for (const t of this.tiers) {
      const span = blockSpan(t);
      for (let s = Math.floor(lo / span) * span; s < hi; s += span) {
        const key = `${t.step}:${s}`;
        if (!this.blocks.has(key) || this.blocks.get(key)) return false;
      }
    }
    return true;
  }
}

/** Whether each interval lies inside one of the series' pending ranges. */
function allPending(info: RollupSeriesInfo, intervals: readonly number[]): boolean {
  const p = info.pending;
  for (let k = 0; k < intervals.length; k += 2) {
    let inside = false;
    for (let i = 0; i < p.length && !inside; i += 2) inside = p[i]! <= intervals[k]! && intervals[k + 1]! <= p[i + 1]!;
    if (!inside) return false;
  }
  return true;
}

function mergeRanges(ranges: [number, number][]): [number, number][] {
  ranges.sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const r of ranges) {
    const last = out.at(-1);
    if (last && r[0] <= last[1] + MERGE_GAP_MS) last[1] = Math.max(last[1], r[1]);
    else out.push([r[0], r[1]]);
  }
  return out;
}

async function readRaw(store: MetricsReader, tenant: string, type: MetricType, id: string, ranges: [number, number][]): Promise<RawPoints> {
  const parts: { ts: Float64Array; values: Float64Array }[] = [];
  for (const [lo, hi] of mergeRanges(ranges)) {
    const s = await store.readSeries(tenant, type, id, lo, hi);
    if (s && s.ts.length > 0) parts.push(s);
  }
  if (parts.length === 1) return rawPoints(parts[0]!.ts, parts[0]!.values);
  let n = 0;
  for (const p of parts) n += p.ts.length;
  const ts = new Float64Array(n);
  const vals = new Float64Array(n);
  let o = 0;
  for (const p of parts) {
    ts.set(p.ts, o);
    vals.set(p.values, o);
    o += p.ts.length;
  }
  return rawPoints(ts, vals);
}

/**
 * Covers of `intervals` ([lo, hi) pairs, flat) for each series, and the raw points they need;
 * undefined when the store keeps no tiers (then everything is read raw, as before).
 */
export async function readThroughTiers(
  store: MetricsReader,
  tenant: string,
  refs: readonly { type: MetricType; id: string }[],
  intervals: readonly number[],
  wholeRaw: WholeRaw,
): Promise<TierReads | undefined> {
  const rr = store.rollups;
  const tiers = rr?.tiers;
  if (!rr || !tiers || tiers.length === 0) return undefined;
  const now = rr.now();
  const infos = await rr.series(tenant, refs);
  // Every interval not rolled up yet (just written, or a catch-up): raw points, as without tiers.
  if (infos.every((info) => !info || allPending(info, intervals))) return undefined;
  const blocks = infos.map(() => new Map<string, Rows | undefined>());
  let covers: Cover[][] = [];
  // A pass plans every interval with what is loaded; blocks it could not see are loaded for the next.
  for (let pass = 0; pass <= tiers.length + 1; pass++) {
    const asks: { i: number; key: string; step: number; start: number }[] = [];
    covers = infos.map((info, i) => {
      if (!info) return [];
      const l = new Lookup(tiers, now, info, blocks[i]!);
      const out: Cover[] = [];
      for (let k = 0; k < intervals.length; k += 2) out.push(cover(l, intervals[k]!, intervals[k + 1]!, info.kind));
      for (const [key, w] of l.wanted) asks.push({ i, key, ...w });
      return out;
    });
    if (asks.length === 0) break;
    const got = await rr.blocks(asks.map((a) => ({ handle: infos[a.i]!.handle, step: a.step, start: a.start })));
    asks.forEach((a, n) => {
      blocks[a.i]!.set(a.key, got[n]);
    });
  }
  const used = new Set<number>();
  let anyRaw = false;
  const series: (SeriesCovers | undefined)[] = [];
  for (let i = 0; i < infos.length; i++) {
    const info = infos[i];
    if (!info) {
      series.push(undefined);
      continue;
    }
    const cs = covers[i]!;
    const ranges: [number, number][] = [];
    const whole = cs.map((c, n) => {
      const lo = intervals[2 * n]!;
      const hi = intervals[2 * n + 1]!;
      const w = wholeRaw(c, lo, hi);
      if (w) ranges.push([lo, hi]);
      else {
        for (const k of c.tiers) used.add(k);
        for (const p of c.pieces) if (isRaw(p)) ranges.push([p.lo, p.hi]);
      }
      return w;
    });
    const ref = refs[i]!;
    const raw = await readRaw(store, tenant, ref.type, ref.id, ranges);
    // Raw points read (a lookup that found none reads nothing worth naming).
    if (raw.ts.length > 0 || whole.some(Boolean)) anyRaw = true;
    series.push({ info, covers: cs, whole, raw });
  }
  return {
    tiers,
    series,
    resolution: () => {
      const names = [...used].sort((a, b) => b - a).map((k) => tiers[k]!.name);
      if (anyRaw || names.length === 0) names.push("raw");
      return names.join(",");
    },
  };
}

/** The header a response names the resolutions it read with (docs/storage.md, "What each query reads"). */
export const RESOLUTION_HEADER = "Outpost-Resolution";
