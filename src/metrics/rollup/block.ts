/**
 * A rollup block on disk: the rows of one series and tier over `blockBuckets` buckets (rows.ts)
 * as compressed columns, checksummed. Integer columns (bucket numbers, counts, times as offsets
 * from the bucket start, sketch bins) use the point codec's integer column; value columns its
 * number schemes (decimal, xor or raw, whichever is smallest). Layout, all little-endian:
 *
 *   version (1) · kind (0 gauge, 1 counter, 2 availability) · varint n · columns · CRC-32
 *
 * Columns appear in the order of rows.ts's lists; the sketch columns follow (a counter's rate
 * sketch after the values' sketch). A block that fails its checksum or does not parse throws
 * PointCodecError, as a corrupt chunk does. A block stored in segments (version 2) is read by
 * block-segments.ts, which holds version 1 blocks.
 */
import { ByteReader, ByteWriter } from "../../codec/bytes.ts";
import { corrupt, PointCodecError } from "../../codec/errors.ts";
import { readIntColumn, writeIntColumn } from "../../codec/int-column.ts";
import { readNumbers, writeNumbers } from "../../codec/point-block.ts";
import { type FloatAlloc, freshFloats } from "../run.ts";
import {
  AVAILABILITY_COLUMNS,
  type AvailabilityRows,
  KIND_AVAILABILITY,
  KIND_COUNTER,
  KIND_NUMERIC,
  NUMERIC_COLUMNS,
  type NumericRows,
  RATE_COLUMNS,
  type Rows,
  SKETCH_COLUMNS,
  type SketchColumns,
} from "./rows.ts";

export const ROLLUP_BLOCK_VERSION = 1;

/** Columns of floating values; every other column holds integers. */
const FLOAT_COLUMNS = new Set(["edgeV", "min", "max", "sum", "firstV", "lastV", "rs", "rmin", "rmax", "rsum"]);
/** Times kept as an offset from the bucket start (+1 where NaN, "never", is 0). */
const OFFSET_COLUMNS = new Set(["firstT", "lastT"]);
const OPTIONAL_OFFSET_COLUMNS = new Set(["lastDT", "lastNUT"]);

export function columnsOf(kind: number): readonly string[] {
  if (kind === KIND_AVAILABILITY) return AVAILABILITY_COLUMNS;
  return kind === KIND_COUNTER ? [...NUMERIC_COLUMNS, ...RATE_COLUMNS] : NUMERIC_COLUMNS;
}

const SRC_EXP_MAX = 2 ** 50;

let scratch = new Float64Array(512);
function room(n: number): Float64Array {
  if (scratch.length < n) scratch = new Float64Array(Math.max(n, scratch.length * 2));
  return scratch;
}

function writeFloats(out: ByteWriter, v: Float64Array, n: number): void {
  const at = out.pos;
  out.byte(0);
  const scheme = writeNumbers(out, v, n, "auto");
  out.buf[at] = scheme;
}

function writeInts(out: ByteWriter, v: ArrayLike<number>, n: number): void {
  if (n > 0) writeIntColumn(out, v, n);
}

function writeSketch(out: ByteWriter, s: SketchColumns, n: number): void {
  for (const c of SKETCH_COLUMNS) writeInts(out, s[c], n);
  out.varuint(s.gaps.length);
  writeInts(out, s.gaps, s.gaps.length);
  writeInts(out, s.counts, s.counts.length);
}

/**
 * The block of `rows`, whose buckets start at blockStart + idx·step. Written `into` a reused
 * writer, the bytes are a view of its buffer, valid until its next use.
 */
export function encodeRows(rows: Rows, blockStart: number, step: number, into?: ByteWriter): Uint8Array {
  const out = into ?? new ByteWriter(256 + rows.n * 32);
  out.pos = 0;
  out.byte(ROLLUP_BLOCK_VERSION);
  out.byte(rows.kind);
  const n = rows.n;
  out.varuint(n);
  const rec = rows as unknown as Record<string, Float64Array>;
  const tmp = room(n);
  for (const c of columnsOf(rows.kind)) {
    const v = rec[c]!;
    if (FLOAT_COLUMNS.has(c)) writeFloats(out, v, n);
    else if (OFFSET_COLUMNS.has(c) || OPTIONAL_OFFSET_COLUMNS.has(c)) {
      const plus = OPTIONAL_OFFSET_COLUMNS.has(c) ? 1 : 0;
      for (let j = 0; j < n; j++) {
        const t = v[j]!;
        tmp[j] = !Number.isNaN(t) ? t - (blockStart + rows.idx[j]! * step) + plus : 0;
      }
      writeInts(out, tmp, n);
    } else if (c === "srcExp") {
      // Beyond the integer column's range (and "never"): the latest time it holds, year 37,648.
      for (let j = 0; j < n; j++) tmp[j] = Math.min(v[j]!, SRC_EXP_MAX);
      writeInts(out, tmp, n);
    } else writeInts(out, v, n);
  }
  if (rows.kind !== KIND_AVAILABILITY) {
    writeSketch(out, rows.sketch, n);
    if (rows.kind === KIND_COUNTER) writeSketch(out, rows.rateSketch!, n);
  }
  out.u32(Bun.hash.crc32(out.buf.subarray(0, out.pos)));
  return into ? out.buf.subarray(0, out.pos) : out.buf.slice(0, out.pos);
}

function readInts(r: ByteReader, n: number, alloc: FloatAlloc): Float64Array {
  const a = alloc(n);
  if (n > 0) readIntColumn(r, n, a);
  return a;
}

function readSketch(r: ByteReader, n: number, alloc: (n: number) => Float64Array): SketchColumns {
  const s = {} as SketchColumns;
  for (const c of SKETCH_COLUMNS) s[c] = readInts(r, n, alloc);
  const bins = r.count(0);
  s.gaps = readInts(r, bins, alloc);
  s.counts = readInts(r, bins, alloc);
  const at = alloc(n + 1);
  for (let j = 0; j < n; j++) at[j + 1] = at[j]! + s.pn[j]! + s.nn[j]!;
  if (at[n] !== bins) corrupt(`the sketches name ${at[n]} bins, the block holds ${bins}`);
  s.at = at;
  return s;
}

/**
 * The rows of a block stored for buckets from blockStart on; throws PointCodecError when it is
 * corrupt. Columns are made by `alloc` (the roller's arena: views valid until its next reset).
 */
export function decodeBlockRows(bytes: Uint8Array, blockStart: number, step: number, alloc: FloatAlloc = freshFloats): Rows {
  if (bytes.length < 7) corrupt(`${bytes.length} bytes is too short for a rollup block`);
  const version = bytes[0]!;
  if (version !== ROLLUP_BLOCK_VERSION) throw new PointCodecError(`unsupported rollup block version ${version} (this program reads version ${ROLLUP_BLOCK_VERSION})`);
  const end = bytes.length - 4;
  const stored = new ByteReader(bytes, end, bytes.length).u32();
  if (stored !== Bun.hash.crc32(bytes.subarray(0, end))) corrupt("rollup block checksum mismatch");
  const kind = bytes[1]!;
  if (kind !== KIND_NUMERIC && kind !== KIND_COUNTER && kind !== KIND_AVAILABILITY) corrupt(`rollup block kind ${kind}`);
  const r = new ByteReader(bytes, 2, end);
  const n = r.count(0);
  const rows: Record<string, unknown> = { kind, n };
  for (const c of columnsOf(kind)) {
    let v: Float64Array;
    if (FLOAT_COLUMNS.has(c)) {
      v = alloc(n);
      const scheme = r.byte();
      if (n > 0) readNumbers(r, scheme, n, v);
    } else v = readInts(r, n, alloc);
    rows[c] = v;
  }
  const idx = rows.idx as Float64Array;
  for (const c of [...OFFSET_COLUMNS, ...OPTIONAL_OFFSET_COLUMNS]) {
    const v = rows[c] as Float64Array | undefined;
    if (!v) continue;
    const plus = OPTIONAL_OFFSET_COLUMNS.has(c);
    for (let j = 0; j < n; j++) {
      const o = v[j]!;
      v[j] = plus ? (o === 0 ? Number.NaN : blockStart + idx[j]! * step + o - 1) : blockStart + idx[j]! * step + o;
    }
  }
  if (kind === KIND_AVAILABILITY) {
    if (r.pos !== end) corrupt(`${end - r.pos} bytes left after the rollup rows`);
    return rows as unknown as AvailabilityRows;
  }
  // The sketches (most of a block's bins) are decoded when a query first asks for them: a rate
  // or a sum over a year needs none. The checksum has covered them already.
  const at = r.pos;
  let sketches: [SketchColumns, SketchColumns | undefined] | undefined;
  const sketchesOf = () => {
    if (!sketches) {
      const sr = new ByteReader(bytes, at, end);
      const values = readSketch(sr, n, alloc);
      const rates = kind === KIND_COUNTER ? readSketch(sr, n, alloc) : undefined;
      if (sr.pos !== end) corrupt(`${end - sr.pos} bytes left after the rollup rows`);
      sketches = [values, rates];
    }
    return sketches;
  };
  Object.defineProperty(rows, "sketch", { get: () => sketchesOf()[0], enumerable: true });
  if (kind === KIND_COUNTER) Object.defineProperty(rows, "rateSketch", { get: () => sketchesOf()[1], enumerable: true });
  return rows as unknown as NumericRows;
}
