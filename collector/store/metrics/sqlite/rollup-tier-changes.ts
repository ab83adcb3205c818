import type { Statement } from "bun:sqlite";
import { decodeRows } from "../../../../src/metrics/rollup/block-segments.ts";
import { rollupKind } from "../../../../src/metrics/rollup/reads.ts";
import { deriveBlocks } from "../../../../src/metrics/rollup/roll.ts";
import type { Rows } from "../../../../src/metrics/rollup/rows.ts";
import type { RollupTier } from "../../../../src/metrics/rollup/tiers.ts";
import type { StoreState } from "./state.ts";

/** Blocks of a tier no longer configured deleted per round. */
const DROP_ROWS = 20_000;

/**
 * The configured tiers against those stored (rollups.ts): a tier taken out has its blocks
 * deleted, a tier added after a finer one that is stored is derived from that tier's blocks,
 * series by series; until then queries do not read it (its mark is undefined).
 */
export class TierChanges {
  /** Steps whose blocks are to be deleted (tiers no longer configured). */
  readonly dropping: number[] = [];
  /** Series still to derive, per tier index being derived (all series of the finer tier at the start). */
  readonly deriving = new Map<number, number[]>();

  constructor(
    private readonly s: StoreState,
    private readonly configured: readonly RollupTier[],
    private readonly st: Record<string, Statement>,
    /** The roller's marks per configured tier, set here as tiers are compared and derived. */
    private readonly marks: (number | undefined)[],
  ) {}

  /** Compares with `stored` (marks by step): sets the marks, and what is to drop or derive. */
  compare(stored: Map<number, number>): void {
    const configured = new Set(this.configured.map((t) => t.step));
    for (const step of stored.keys()) if (!configured.has(step)) this.dropping.push(step);
    this.configured.forEach((t, k) => {
      const mark = stored.get(t.step);
      if (mark !== undefined) this.marks[k] = mark;
      else if (k > 0 && stored.has(this.configured[k - 1]!.step)) {
        this.marks[k] = undefined;
        this.deriving.set(k, (this.s.db.query("SELECT DISTINCT sid FROM rollups WHERE step = ? ORDER BY sid").values(this.configured[k - 1]!.step) as [number][]).map((r) => r[0]));
      } else this.marks[k] = 0;
    });
    const log = this.s.opts.log;
    for (const k of this.deriving.keys()) log?.info("rollup tier added: computing it from the finer tier", { tier: this.configured[k]!.name, from: this.configured[k - 1]!.name });
    for (const step of this.dropping) log?.info("rollup tier no longer configured: deleting its blocks", { step });
  }

  /** Nothing to drop or derive. */
  get settled(): boolean {
    return this.dropping.length === 0 && this.deriving.size === 0;
  }

  /** Deletes the blocks of dropped tiers, DROP_ROWS per call at most (`cleared`: told after each delete). */
  drop(cleared: () => void): void {
    while (this.dropping.length > 0) {
      const step = this.dropping[0]!;
      const gone = this.s.writing(() => this.s.db.query("DELETE FROM rollups WHERE rowid IN (SELECT rowid FROM rollups WHERE step = ? LIMIT ?)").run(step, DROP_ROWS).changes);
      cleared();
      if (gone === DROP_ROWS) return;
      this.s.writing(() => this.s.db.query("DELETE FROM rollup_progress WHERE step = ?").run(step));
      this.dropping.shift();
    }
  }

  /** Derives a coarser tier for some series from the finer tier's blocks (`write` stores one); the last one gives it the finer mark. */
  deriveSome(write: (sid: number, t: RollupTier, start: number, rows: Rows) => void): void {
    const [k, sids] = this.deriving.entries().next().value!;
    const finer = this.configured[k - 1]!;
    const coarse = this.configured[k]!;
    const take = sids.splice(0, 8);
    this.s.writing(() =>
      this.s.db.transaction(() => {
        for (const sid of take) {
          const m = this.s.bySid.get(sid);
          const kind = m && rollupKind(m.type);
          if (kind === undefined) continue;
          const blocks = (this.st.seriesBlocks!.all(sid, finer.step) as { block_start: number; body: Uint8Array }[]).map((r) => ({ start: r.block_start, rows: decodeRows(r.body, r.block_start, finer.step) }));
          for (const b of deriveBlocks(kind, finer, coarse, blocks)) write(sid, coarse, b.start, b.rows);
        }
        if (sids.length === 0) this.st.setMark!.run(coarse.step, this.marks[k - 1]!);
      })(),
    );
    if (sids.length === 0) {
      this.deriving.delete(k);
      this.marks[k] = this.marks[k - 1];
      this.s.opts.log?.info("rollup tier computed from the finer tier", { tier: coarse.name });
    }
  }
}
