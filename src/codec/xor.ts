import { get } from "./bit-pack.ts";
import { BitWriter } from "./bit-stream.ts";
import type { ByteReader, ByteWriter } from "./bytes.ts";
import { corrupt } from "./errors.ts";

/**
 * Gorilla's XOR scheme for values that are not short decimals: each float64 is XORed with the
 * previous one and only the bits that differ are kept. Works on the raw bits, so every
 * float64 (NaN payloads, ±Infinity, −0) comes back exactly.
 *
 * Per value after the first (raw 64 bits, low word first): `0` = same bits as the previous;
 * `10` + the differing bits inside the previous window; `11` + 5 bits leading zeros (at most
 * 31) + 6 bits window length − 1 + the window. Bits are LSB-first.
 * The stream ends at the next byte boundary.
 */

/** Trailing zero bits of a non-zero 32-bit word. */
export const ctz = (x: number) => 31 - Math.clz32(x & -x);

function words(v: Float64Array): Uint32Array {
  return new Uint32Array(v.buffer, v.byteOffset, v.length * 2);
}

/** Writes `m` bits of the 64-bit value hi:lo shifted right by `tz`. */
export function writeWindow(b: BitWriter, hi: number, lo: number, tz: number, m: number): void {
  let l: number;
  let h: number;
  if (tz >= 32) {
    l = hi >>> (tz - 32);
    h = 0;
  } else if (tz === 0) {
    l = lo;
    h = hi;
  } else {
    l = (lo >>> tz) | (hi << (32 - tz));
    h = hi >>> tz;
  }
  if (m > 32) {
    b.write(l, 32);
    b.write(h, m - 32);
  } else b.write(l, m);
}

/**
 * One writer reused by every call (encoding is synchronous): a sealing round of 1,000 chunks
 * otherwise left 18 KB of words per chunk to the garbage collector. One that grew for a very
 * large block is not kept.
 */
let scratch = new BitWriter(1024);
const SCRATCH_KEEP_WORDS = 64 * 1024;

export function writeXor(out: ByteWriter, v: Float64Array, n: number): void {
  const b = scratch;
  b.reset(((n * 9) >>> 2) + 4);
  if (n > 0) {
    const u = words(v);
    let pl = u[0]!;
    let ph = u[1]!;
    b.write(pl, 32);
    b.write(ph, 32);
    let plz = -1;
    let ptz = 0;
    for (let i = 1; i < n; i++) {
      const l = u[2 * i]!;
      const h = u[2 * i + 1]!;
      const xl = l ^ pl;
      const xh = h ^ ph;
      pl = l;
      ph = h;
      if ((xl | xh) === 0) {
        b.write(0, 1);
        continue;
      }
      let lz = xh !== 0 ? Math.clz32(xh) : 32 + Math.clz32(xl);
      const tz = xl !== 0 ? ctz(xl) : 32 + ctz(xh);
      if (plz >= 0 && lz >= plz && tz >= ptz) {
        b.write(1, 2);
        writeWindow(b, xh, xl, ptz, 64 - plz - ptz);
      } else {
        if (lz > 31) lz = 31;
        const m = 64 - lz - tz;
        b.write(3 | (lz << 2) | ((m - 1) << 7), 13);
        writeWindow(b, xh, xl, tz, m);
        plz = lz;
        ptz = tz;
      }
    }
  }
  out.bytes(b.bytes());
  if (b.words.length > SCRATCH_KEEP_WORDS) scratch = new BitWriter(1024);
}

export function readXor(r: ByteReader, n: number, out: Float64Array): void {
  if (n === 0) return;
  const w = r.words();
  const limit = r.end * 8;
  let o = r.pos * 8;
  const u = words(out);
  let pl = get(w, o, 32);
  let ph = get(w, o + 32, 32);
  o += 64;
  u[0] = pl;
  u[1] = ph;
  let lz = -1;
  let tz = 0;
  let m = 0;
  for (let i = 1; i < n; i++) {
    // The control bits and a new window's header, peeked at once: 13 bits.
    const c = get(w, o, 13);
    if ((c & 1) === 0) o += 1;
    else {
      if (c & 2) {
        lz = (c >>> 2) & 31;
        m = (c >>> 7) + 1;
        tz = 64 - lz - m;
        if (tz < 0) corrupt("XOR window out of range");
        o += 13;
      } else {
        if (lz < 0) corrupt("XOR window reused before one was set");
        o += 2;
      }
      let l: number;
      let h = 0;
      if (m > 32) {
        l = get(w, o, 32);
        h = get(w, o + 32, m - 32);
      } else l = get(w, o, m);
      o += m;
      // Shift the window back into place.
      if (tz >= 32) ph ^= l << (tz - 32);
      else if (tz === 0) {
        pl ^= l;
        ph ^= h;
      } else {
        pl ^= l << tz;
        ph ^= (h << tz) | (l >>> (32 - tz));
      }
    }
    u[2 * i] = pl;
    u[2 * i + 1] = ph;
    // Checked per value: corrupt control bits cannot run far past the data.
    if (o > limit) corrupt("XOR values past the end of the data");
  }
  r.pos = (o + 7) >>> 3;
}
