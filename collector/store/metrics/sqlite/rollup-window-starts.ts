import { lowerBound } from "../../../../src/metrics/series.ts";

/**
 * The earliest start of each series' chunks in a rollup window, from the query that opens it
 * (rows [sid, min start_ts], ascending by sid). A step reads the series' chunks from there on
 * through the series index (`ChunkSource.seriesChunks`): by sid alone it read every chunk the
 * series has stored, 7,000 and more a series once 80-point chunks of slow series fill a week
 * (issue 28, docs/storage.md "The roller's windows").
 */
export class WindowStarts {
  private readonly sids: Float64Array;
  private readonly starts: Float64Array;

  constructor(rows: readonly (readonly [number, number])[]) {
    this.sids = new Float64Array(rows.length);
    this.starts = new Float64Array(rows.length);
    for (let i = 0; i < rows.length; i++) {
      this.sids[i] = rows[i]![0];
      this.starts[i] = rows[i]![1];
    }
  }

  /** The series' earliest chunk start in the window; undefined for a series not in it. */
  of(sid: number): number | undefined {
    const i = lowerBound(this.sids, sid);
    return i < this.sids.length && this.sids[i] === sid ? this.starts[i] : undefined;
  }
}
