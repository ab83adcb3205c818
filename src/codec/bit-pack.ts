import type { ByteReader, ByteWriter } from "./bytes.ts";
import { unzigzag } from "./bytes.ts";
import { corrupt } from "./errors.ts";

/**
 * Frame-of-reference bit packing of unsigned integers (zigzag values, at most 2^53): groups of
 * 32 values share one bit width. A group of zeros (regular timestamps, constant values) costs
 * nothing but its header, and runs of equal headers are written once, so a constant column
 * costs a few bytes whatever its length. A group whose values are mostly zero (a counter that
 * moves now and then) is written sparse: a bitmap of the non-zero values, then only those.
 *
 * Layout: group headers, then the packed bits. A header byte holds the width (bits 0-5, at
 * most 54), bit 6 = sparse, bit 7 = a varint follows with how many following groups repeat
 * this header. Bits are LSB-first; a dense group is its values at `width` bits each; a sparse
 * group is a bitmap (one bit per value of the group) then its non-zero values; a value wider
 * than 32 bits is written low 32 bits first.
 */
export const GROUP = 32;
const TWO32 = 2 ** 32;
const SPARSE = 0x40;
const RUN = 0x80;
const MAX_WIDTH = 54;

if (new Uint8Array(new Uint32Array([1]).buffer)[0] !== 1) throw new Error("the point codec needs a little-endian platform");

let words = new Uint32Array(1024);
let wordBytes = new Uint8Array(words.buffer);
let headers = new Uint8Array(64);

/** A zero-filled scratch of at least `n` 32-bit words, shared by every call (the codec is synchronous). */
function scratch(n: number): Uint32Array {
  if (words.length < n) {
    words = new Uint32Array(Math.max(n, words.length * 2));
    wordBytes = new Uint8Array(words.buffer);
  } else words.fill(0, 0, n);
  return words;
}

function bitLength(z: number): number {
  return z < TWO32 ? 32 - Math.clz32(z) : 64 - Math.clz32(Math.floor(z / TWO32));
}

/**
 * Chooses each group's header for zz[0..m) into `headers` (without the run bit); returns the
 * packed size in bits.
 */
function plan(zz: Float64Array, m: number): number {
  const groups = (m + GROUP - 1) >>> 5;
  if (headers.length < groups) headers = new Uint8Array(Math.max(groups, headers.length * 2));
  let bits = 0;
  for (let g = 0, i = 0; i < m; g++) {
    const end = Math.min(i + GROUP, m);
    const size = end - i;
    let or = 0;
    let big = 0;
    let nonZero = 0;
    for (; i < end; i++) {
      const z = zz[i]!;
      if (z > 0xffffffff) big = big > z ? big : z;
      else or |= z;
      if (z !== 0) nonZero++;
    }
    const w = big > 0 ? bitLength(big) : 32 - Math.clz32(or);
    const sparse = size + nonZero * w;
    if (sparse < size * w) {
      headers[g] = w | SPARSE;
      bits += sparse;
    } else {
      headers[g] = w;
      bits += size * w;
    }
  }
  return bits;
}

function headerBytes(groups: number): number {
  let n = 0;
  for (let g = 0; g < groups; ) {
    const h = headers[g]!;
    let e = g + 1;
    while (e < groups && headers[e] === h) e++;
    n += e - g === 1 ? 1 : 1 + varuintSize(e - g - 1);
    g = e;
  }
  return n;
}

function varuintSize(x: number): number {
  return x < 0x80 ? 1 : x < 0x4000 ? 2 : x < 0x200000 ? 3 : 4;
}

/** Size in bytes that pack() would write for zz[0..m). */
export function packedSize(zz: Float64Array, m: number): number {
  const bits = plan(zz, m);
  return headerBytes((m + GROUP - 1) >>> 5) + ((bits + 7) >>> 3);
}

/** Writes the low `width` (<= 32) bits of v at bit offset o of w. */
function put(w: Uint32Array, o: number, v: number, width: number): void {
  const k = o >>> 5;
  const s = o & 31;
  w[k]! |= v << s;
  if (s + width > 32) w[k + 1]! |= v >>> (32 - s);
}

function putWide(w: Uint32Array, o: number, z: number, width: number): void {
  if (width <= 32) put(w, o, z, width);
  else {
    put(w, o, z >>> 0, 32);
    put(w, o + 32, Math.floor(z / TWO32), width - 32);
  }
}

/** Packs zz[0..m) (zigzag values) into `out`. */
export function pack(zz: Float64Array, m: number, out: ByteWriter): void {
  const groups = (m + GROUP - 1) >>> 5;
  const bits = plan(zz, m);
  for (let g = 0; g < groups; ) {
    const h = headers[g]!;
    let e = g + 1;
    while (e < groups && headers[e] === h) e++;
    if (e - g === 1) out.byte(h);
    else {
      out.byte(h | RUN);
      out.varuint(e - g - 1);
    }
    g = e;
  }
  const w = scratch(((bits + 31) >>> 5) + 1);
  let o = 0;
  for (let g = 0, i = 0; i < m; g++) {
    const h = headers[g]!;
    const width = h & 63;
    const end = Math.min(i + GROUP, m);
    if (width === 0) {
      i = end;
    } else if (h & SPARSE) {
      const size = end - i;
      let map = 0;
      for (let j = 0; j < size; j++) if (zz[i + j] !== 0) map |= 1 << j;
      put(w, o, map, size);
      o += size;
      for (; i < end; i++) {
        const z = zz[i]!;
        if (z === 0) continue;
        putWide(w, o, z, width);
        o += width;
      }
    } else if (width <= 32) {
      for (; i < end; i++, o += width) put(w, o, zz[i]!, width);
    } else {
      for (; i < end; i++, o += width) putWide(w, o, zz[i]!, width);
    }
  }
  out.bytes(wordBytes.subarray(0, (bits + 7) >>> 3));
}

/** Reads `width` (1–32) bits at bit offset o of w (LSB-first), as an unsigned number. */
export function get(w: Uint32Array, o: number, width: number): number {
  const k = o >>> 5;
  const s = o & 31;
  let v = w[k]! >>> s;
  if (s + width > 32) v |= w[k + 1]! << (32 - s);
  return width === 32 ? v >>> 0 : v & ((1 << width) - 1);
}

function getWide(w: Uint32Array, o: number, width: number): number {
  if (width <= 32) return get(w, o, width);
  return get(w, o + 32, width - 32) * TWO32 + get(w, o, 32);
}

/**
 * True when the m packed values at r are all zero written as one run of zero-width groups
 * (the second differences of regular timestamps): then the header is consumed and the values
 * are left for the caller to use as zeros; otherwise r is left as it was, for unpack.
 */
export function packedZeros(r: ByteReader, m: number): boolean {
  const groups = (m + GROUP - 1) >>> 5;
  if (groups === 0 || r.pos >= r.end) return false;
  const at = r.pos;
  const b = r.buf[at]!;
  if ((b & ~RUN) !== 0) return false;
  r.pos++;
  const run = b & RUN ? 1 + r.varuint() : 1;
  if (run === groups) return true;
  r.pos = at;
  return false;
}

let runHeaders = new Uint8Array(64);
let runGroups = new Int32Array(64);

/**
 * Reads m packed values into out[at..at+m), zigzag-decoded when `signed`. With `sums` ([value,
 * delta], signed values only), the values are second differences and out gets their sums
 * (delta += x, value += delta), as readIntColumn's order-2 form wants; sums ends at the last.
 */
export function unpack(r: ByteReader, m: number, out: Float64Array, at: number, signed: boolean, sums?: Float64Array): void {
  const groups = (m + GROUP - 1) >>> 5;
  if (runHeaders.length < groups) {
    runHeaders = new Uint8Array(Math.max(groups, runHeaders.length * 2));
    runGroups = new Int32Array(runHeaders.length);
  }
  let runs = 0;
  for (let g = 0; g < groups; runs++) {
    const b = r.byte();
    const h = b & ~RUN;
    const run = b & RUN ? 1 + r.varuint() : 1;
    if (run > groups - g) corrupt("group headers past the end of the column");
    const width = h & 63;
    if (width > MAX_WIDTH || (h & SPARSE && width === 0)) corrupt(`group header ${b}`);
    runHeaders[runs] = h;
    runGroups[runs] = run;
    g += run;
  }
  // Bit offsets count from here: dense groups start word-aligned, for groupDecoder.
  const from = r.pos;
  const w = r.wordsAt(from);
  const limit = (r.end - from) * 8;
  let o = 0;
  let i = at;
  const last = at + m;
  // A run of equal dense headers is one loop over all its values.
  for (let k = 0; k < runs; k++) {
    const h = runHeaders[k]!;
    const width = h & 63;
    const end = Math.min(i + runGroups[k]! * GROUP, last);
    // With `sums`, where the values not yet summed start.
    let raw = i;
    if (width === 0) {
      out.fill(0, i, end);
      i = end;
    } else if (h & SPARSE) {
      while (i < end) {
        const groupEnd = Math.min(i + GROUP, end);
        const map = get(w, o, groupEnd - i);
        o += groupEnd - i;
        for (let j = 0; i < groupEnd; i++, j++) {
          if (map & (1 << j)) {
            const v = getWide(w, o, width);
            out[i] = signed ? unzigzag(v) : v;
            o += width;
          } else out[i] = 0;
        }
        if (o > limit) corrupt("packed values past the end of the data");
      }
    } else {
      if (o + (end - i) * width > limit) corrupt("packed values past the end of the data");
      if (width >= 32) {
        for (; i < end; i++, o += width) {
          const v = getWide(w, o, width);
          out[i] = signed ? unzigzag(v) : v;
        }
      } else {
        if ((o & 31) === 0 && end - i >= GROUP) {
          // Whole groups at a word boundary (every dense group after dense ones is: 32 values
          // of `width` bits are `width` words).
          let k = o >>> 5;
          if (sums && signed) {
            const f = summingDecoder(width);
            for (; end - i >= GROUP; i += GROUP, k += width) f(w, k, out, i, sums);
            raw = i;
          } else {
            const f = groupDecoder(width, signed);
            for (; end - i >= GROUP; i += GROUP, k += width) f(w, k, out, i);
          }
          o = k * 32;
        }
        if (signed) o = denseSigned(w, o, width, out, i, end);
        else o = denseUnsigned(w, o, width, out, i, end);
      }
      i = end;
    }
    if (sums) {
      let v = sums[0]!;
      let d = sums[1]!;
      for (let j = raw; j < end; j++) out[j] = v += d += out[j]!;
      sums[0] = v;
      sums[1] = d;
    }
  }
  r.pos = from + ((o + 7) >>> 3);
}

/**
 * The source lines of a generated group decoder: the group's `width` words read into w0…, then
 * per value j the line `use` makes of the expression that extracts field j (constant shifts).
 */
function groupLines(width: number, use: (field: string, j: number) => string): string[] {
  const lines: string[] = [];
  for (let j = 0; j < width; j++) lines.push(`const w${j} = w[k + ${j}];`);
  const mask = 2 ** width - 1;
  for (let j = 0; j < GROUP; j++) {
    const o = j * width;
    const wk = o >>> 5;
    const s = o & 31;
    let e = s === 0 ? `w${wk}` : `(w${wk} >>> ${s})`;
    if (s + width > 32) e = `(${e} | (w${wk + 1} << ${32 - s}))`;
    lines.push(use(`${e} & ${mask}`, j));
  }
  return lines;
}

type GroupDecoder = (w: Uint32Array, k: number, out: Float64Array, i: number) => void;
const groupDecoders: GroupDecoder[][] = [[], []];

/**
 * A decoder of one dense group of `width` (1–31) bits starting at word k, into out[i..i+32):
 * straight-line code with constant shifts, generated once per width and signedness. It
 * measured 2.5× as fast as denseSigned's loop, whose shifts and word index vary per value.
 */
function groupDecoder(width: number, signed: boolean): GroupDecoder {
  const cached = groupDecoders[signed ? 1 : 0]![width];
  if (cached) return cached;
  const lines = groupLines(width, (field, j) => (signed ? `v = ${field}; out[i + ${j}] = (v >>> 1) ^ -(v & 1);` : `out[i + ${j}] = ${field};`));
  const f = new Function("w", "k", "out", "i", `let v = 0;\n${lines.join("\n")}`) as GroupDecoder;
  groupDecoders[signed ? 1 : 0]![width] = f;
  return f;
}

type SummingDecoder = (w: Uint32Array, k: number, out: Float64Array, i: number, sums: Float64Array) => void;
const summingDecoders: SummingDecoder[] = [];

/**
 * groupDecoder for signed second differences summed twice on the way, as readIntColumn sums
 * them (sums: [value, delta], carried from group to group): one pass over the values instead
 * of two, 15 % less time decoding bench/promql-micro.ts's counters.
 */
function summingDecoder(width: number): SummingDecoder {
  const cached = summingDecoders[width];
  if (cached) return cached;
  const lines = groupLines(width, (field, j) => `z = ${field}; out[i + ${j}] = v += d += (z >>> 1) ^ -(z & 1);`);
  const body = `let z = 0;\nlet v = sums[0];\nlet d = sums[1];\n${lines.join("\n")}\nsums[0] = v;\nsums[1] = d;`;
  const f = new Function("w", "k", "out", "i", "sums", body) as SummingDecoder;
  summingDecoders[width] = f;
  return f;
}

/**
 * Values of `width` < 32 bits from bit offset o into out[i..end); returns the offset after them.
 * Two loops, signed and unsigned: one loop testing a flag per value measured 25–50 % slower.
 */
function denseSigned(w: Uint32Array, o: number, width: number, out: Float64Array, i: number, end: number): number {
  const mask = (1 << width) - 1;
  for (; i < end; i++, o += width) {
    const k = o >>> 5;
    const s = o & 31;
    let v = w[k]! >>> s;
    if (s + width > 32) v |= w[k + 1]! << (32 - s);
    v &= mask;
    out[i] = (v >>> 1) ^ -(v & 1);
  }
  return o;
}

function denseUnsigned(w: Uint32Array, o: number, width: number, out: Float64Array, i: number, end: number): number {
  const mask = (1 << width) - 1;
  for (; i < end; i++, o += width) {
    const k = o >>> 5;
    const s = o & 31;
    let v = w[k]! >>> s;
    if (s + width > 32) v |= w[k + 1]! << (32 - s);
    out[i] = v & mask;
  }
  return o;
}
