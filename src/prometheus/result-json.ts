/**
 * Query results as Prometheus' API serializes them (`{"resultType":…,"result":…}`, timestamps
 * in seconds, values as strings), produced as byte chunks so that a large matrix is sent while
 * it is written instead of first becoming one string.
 */
import { type Labels, labelsToRecord } from "../promql/labels.ts";
import type { QueryResult } from "../promql/query.ts";
import { JsonBytes } from "./json-bytes.ts";

const COMMA = 44;

function point(w: JsonBytes, t: number, v: number): void {
  w.byte(91); // [
  w.timestamp(t);
  w.ascii(',"');
  w.sampleValue(v);
  w.ascii('"]');
}

/**
 * The encoded timestamps of one time column. Series of a range query share the column of step
 * times (whole, or a view of the steps they have values at), so its timestamps are written
 * once, then copied.
 */
class EncodedTimes {
  private col?: Float64Array;
  private bytes = new Uint8Array(0);
  private offsets = new Uint32Array(0);
  /** Index in the column of the first timestamp of the view given to `of`. */
  first = 0;

  /** The whole column `view` is part of (see columnOf). */
  of(view: Float64Array): this {
    const col = columnOf(view)!;
    this.first = (view.byteOffset - col.byteOffset) >>> 3;
    if (col.buffer === this.col?.buffer && col.length === this.col.length) return this;
    const w = new JsonBytes(col.length * 16 + 16);
    this.offsets = new Uint32Array(col.length + 1);
    for (let i = 0; i < col.length; i++) {
      this.offsets[i] = w.length;
      w.timestamp(col[i]!);
    }
    this.offsets[col.length] = w.length;
    this.bytes = Buffer.concat(w.end());
    this.col = col;
    return this;
  }

  /** Timestamp i of the view. */
  write(w: JsonBytes, i: number): void {
    const j = this.first + i;
    w.copy(this.bytes, this.offsets[j]!, this.offsets[j + 1]!);
  }
}

/**
 * The whole column a timestamp view is part of: its buffer as float64s, when that is not much
 * larger than the view (a view into a larger buffer of other data is not worth encoding whole).
 */
function columnOf(view: Float64Array): Float64Array | undefined {
  const n = view.buffer.byteLength >>> 3;
  if (n > 2 * view.length + 64) return undefined;
  return new Float64Array(view.buffer, 0, n);
}

const metric = (w: JsonBytes, l: Labels) => w.text(`{"metric":${JSON.stringify(labelsToRecord(l))}`);

/**
 * `{"status":"success","data":{"resultType":…,"result":…}}` in chunks of about `chunkBytes`;
 * `spare`: chunks yielded before that may be written again (see JsonBytes).
 */
export function* successChunks(r: QueryResult, chunkBytes?: number, spare?: Uint8Array[]): Generator<Uint8Array> {
  const w = new JsonBytes(chunkBytes, spare);
  w.ascii(`{"status":"success","data":{"resultType":"${r.resultType}","result":`);
  switch (r.resultType) {
    case "scalar":
      point(w, r.result.t, r.result.v);
      break;
    case "string":
      w.byte(91);
      w.timestamp(r.result.t);
      w.byte(COMMA);
      w.text(JSON.stringify(r.result.v));
      w.byte(93);
      break;
    case "vector":
      w.byte(91);
      r.result.forEach((s, k) => {
        if (k > 0) w.byte(COMMA);
        metric(w, s.labels);
        w.ascii(',"value":');
        point(w, s.t, s.v);
        w.byte(125);
      });
      w.byte(93);
      break;
    case "matrix": {
      w.byte(91);
      const times = new EncodedTimes();
      let prev: Float64Array | undefined;
      for (let k = 0; k < r.result.length; k++) {
        const s = r.result[k]!;
        if (k > 0) w.byte(COMMA);
        metric(w, s.labels);
        w.ascii(',"values":[');
        // A column seen twice in a row (whole or in part) is worth encoding once.
        const shared = prev !== undefined && s.ts.buffer === prev.buffer && columnOf(s.ts) ? times.of(s.ts) : undefined;
        prev = s.ts;
        for (let i = 0; i < s.ts.length; i++) {
          if (i > 0) w.byte(COMMA);
          if (!shared) point(w, s.ts[i]!, s.vals[i]!);
          else {
            w.byte(91);
            shared.write(w, i);
            w.ascii(',"');
            w.sampleValue(s.vals[i]!);
            w.ascii('"]');
          }
        }
        w.ascii("]}");
        yield* w.take();
      }
      w.byte(93);
    }
  }
  w.ascii("}}");
  yield* w.end();
}
