/** The messages between the main thread and the remote-write worker (remote-write-offload.ts, remote-write-worker.ts). */

export interface RemoteWriteRequest {
  id: number;
  /** The dictionary's epoch: a new one empties the worker's codes first (the main thread's byCode was emptied). */
  epoch: number;
  /** Codes the dictionary may hold; past them, a body with new series is answered "not columns". */
  maxCodes: number;
  /** The compressed body's bytes (its first `length`), transferred; sent back with the reply. */
  body: ArrayBuffer;
  length: number;
  /** The largest uncompressed body accepted (--max-request-body). */
  limit: number;
  /** Output buffers of earlier replies, given back for reuse. */
  spare?: ArrayBuffer[];
}

export interface RemoteWriteReply {
  id: number;
  /** The epoch whose codes the reply uses. */
  epoch: number;
  body: ArrayBuffer;
  /** Columns in `out` (see outputViews); false: the main thread decodes the body itself. */
  ok: boolean;
  out?: ArrayBuffer;
  entries?: number;
  points?: number;
  skipped?: number;
  /** Codes of series the body named without any point (not in the columns, but their labels must be accepted). */
  empty?: Int32Array;
  /** The label bytes of the codes this body added (numbered on from the last ones), end to end; `newEnds` where each ends. */
  newKeys?: Uint8Array;
  newEnds?: Int32Array;
}

const align8 = (n: number) => (n + 7) & ~7;

/** Bytes of an output buffer for `n` entries and `points` points. */
export function outputBytes(n: number, points: number): number {
  return align8(n * 8) + points * 16;
}

/** An output buffer's columns: per entry its point count and its code, then timestamps and values. */
export function outputViews(out: ArrayBuffer, n: number, points: number): { counts: Uint32Array; codes: Int32Array; ts: Float64Array; values: Float64Array } {
  const tsAt = align8(n * 8);
  return {
    counts: new Uint32Array(out, 0, n),
    codes: new Int32Array(out, n * 4, n),
    ts: new Float64Array(out, tsAt, points),
    values: new Float64Array(out, tsAt + points * 8, points),
  };
}
