/**
 * Shared memory between the main thread and the JSON ingest worker (json-offload.ts,
 * json-worker.ts): a slot is a body's bytes (copied in by the main thread) and the columns the
 * worker scans them into, both in SharedArrayBuffers that are kept and reused from request to
 * request. Why: a body posted to the worker was copied twice more (about 640 KB for a 270 KB
 * body), decoded into a string and parsed into objects there, and its columns were new arrays
 * again; all of it fresh memory that the allocator took from the system and gave back, page by
 * page (issue 28). A slot belongs to one request at a time: from take() until the store has
 * committed and applied its columns and release() gives it back, so no request sees another's
 * bytes or columns (test/collector/metrics/ingest-worker.test.ts).
 */
import { capacityFor } from "../../src/metrics/json-columns.ts";
import type { ColumnType, WriteColumns } from "../../src/metrics/write-columns.ts";

/** Bodies up to this size use kept slots; a larger one gets memory of its own for its request. */
export const SLOT_MAX_BYTES = 4 * 1024 * 1024;
/** The smallest slot: bodies the worker takes are 32 KB and more by default. */
const SLOT_MIN_BYTES = 64 * 1024;

/**
 * Where the columns lie in a slot's output buffer, for bodies of up to `inputBytes`: per entry its
 * point count and its id's code (json-worker.ts's dictionary of ids), then timestamps and values.
 */
export function outputLayout(inputBytes: number): { entries: number; points: number; codesAt: number; tsAt: number; valuesAt: number; bytes: number } {
  const { entries, points } = capacityFor(inputBytes);
  const codesAt = entries * 4;
  const tsAt = Math.ceil((codesAt + entries * 4) / 8) * 8;
  const valuesAt = tsAt + points * 8;
  return { entries, points, codesAt, tsAt, valuesAt, bytes: valuesAt + points * 8 };
}

/** The column views of an output buffer (sized by outputLayout for `inputBytes`). */
export function outputViews(output: SharedArrayBuffer, inputBytes: number): { counts: Uint32Array; codes: Uint32Array; ts: Float64Array; values: Float64Array } {
  const l = outputLayout(inputBytes);
  return {
    counts: new Uint32Array(output, 0, l.entries),
    codes: new Uint32Array(output, l.codesAt, l.entries),
    ts: new Float64Array(output, l.tsAt, l.points),
    values: new Float64Array(output, l.valuesAt, l.points),
  };
}

export class Slot {
  readonly input: SharedArrayBuffer;
  readonly output: SharedArrayBuffer;
  /** The worker this slot's buffers were last sent to (a new worker gets them again). */
  sentTo: unknown;
  busy = false;

  constructor(
    readonly index: number,
    readonly capacity: number,
  ) {
    this.input = new SharedArrayBuffer(capacity);
    this.output = new SharedArrayBuffer(outputLayout(capacity).bytes);
  }

  /**
   * The columns the worker scanned into this slot: views of its memory, valid until the slot is
   * given back (json-offload.ts marks them released then, so that a reader who kept them fails
   * loudly: columnsToWrites); the ids are the dictionary's strings, made once per id, not per body.
   */
  columns(type: ColumnType, idByCode: readonly string[], entries: number, points: number): WriteColumns {
    const v = outputViews(this.output, this.capacity);
    const ids = new Array<string>(entries);
    for (let e = 0; e < entries; e++) ids[e] = idByCode[v.codes[e]!]!;
    return { type, ids, counts: v.counts.subarray(0, entries), ts: v.ts.subarray(0, points), values: v.values.subarray(0, points), tags: [] };
  }
}

/** The kept slots, at most `max`; a body finding none free is parsed elsewhere (the caller's choice). */
export class SlotPool {
  private readonly slots: (Slot | undefined)[] = [];
  /** Index given to a body too large for the kept slots (its slot is dropped after its request). */
  static readonly ONE_OFF = -1;

  constructor(readonly max: number) {}

  /** A free slot for a body of `bytes`, grown (replaced) when too small; undefined when all are busy. */
  take(bytes: number): Slot | undefined {
    if (bytes > SLOT_MAX_BYTES) {
      const s = new Slot(SlotPool.ONE_OFF, bytes);
      s.busy = true;
      return s;
    }
    let free = -1;
    for (let i = 0; i < this.max; i++) {
      const s = this.slots[i];
      if (!s) {
        if (free < 0) free = i;
        continue;
      }
      if (s.busy) continue;
      if (s.capacity >= bytes) {
        s.busy = true;
        return s;
      }
      if (free < 0) free = i;
    }
    if (free < 0) return undefined;
    let capacity = SLOT_MIN_BYTES;
    while (capacity < bytes) capacity *= 2;
    const s = new Slot(free, capacity);
    this.slots[free] = s;
    s.busy = true;
    return s;
  }

  give(s: Slot): void {
    s.busy = false;
  }

  /** Drops a slot for good (a worker that held it was ended, and may still have written to it). */
  discard(s: Slot): void {
    if (this.slots[s.index] === s) this.slots[s.index] = undefined;
  }

  /** Bytes the kept slots hold (input and output). */
  get bytes(): number {
    let n = 0;
    for (const s of this.slots) if (s) n += s.input.byteLength + s.output.byteLength;
    return n;
  }
}
