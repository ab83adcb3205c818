import { get } from "./bit-pack.ts";
import { BitWriter } from "./bit-stream.ts";
import { corrupt } from "./errors.ts";
import { ctz, writeWindow } from "./xor.ts";

/**
 * One series' points compressed as they come, in timestamp order: the form a slow series'
 * head keeps them in (collector/store/metrics/head.ts), at a few bytes a point instead of 16,
 * without holding raw points until a block is full. Not a storage format: it lives in memory
 * only, and the head's points are sealed into point-codec blocks as before.
 *
 * Bits are LSB-first. The first point: its timestamp and value as raw float64s, then 3 bits:
 * the decimal exponent e (0–6), the smallest that makes the first value an exact decimal
 * (0 when none does). Each later point:
 * - its timestamp as the change of its step (a difference of differences), a change c written
 *   `0` (c = 0), `01` + 4 bits, `011` + 8 bits, `0111` + 13 bits (c plus 7, 127 or 4,095), or
 *   `1111` + 32 bits (c as int32);
 * - its value: `0` the same float64 bits as the last; `01` + a change as above: an exact
 *   decimal (value × 10^e an integer m), m's difference from the last m changed by c (the
 *   point codec's decimal idea, a point at a time: counters and short gauges take a few bits);
 *   `11` + Gorilla XOR with the last value's bits (xor.ts): `0` + the differing bits inside
 *   the last window, or `1` + 5 bits leading zeros + 6 bits window length − 1 + the window.
 * A timestamp that is not an integer (milliseconds), not after the last, or whose step's change
 * does not fit 32 bits, is refused (push returns false): the caller keeps such points raw.
 */

/** Words a stream takes at its first point (none before: a head that never streams holds no words). */
const FIRST_WORDS = 8;
/** A stream cleared with more words than this gives them up (a series written fast once holds no more for good). */
const KEEP_WORDS = 64;
const POW10 = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000];
/** Largest decimal mantissa taken: sums of three stay exact integers. */
const MANTISSA_LIMIT = 2 ** 50;
const CHANGE_LIMIT = 0x7fffffff;

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);

/** v × p as an exact integer mantissa, or NaN when v is not such a decimal (−0 is not: its sign would be lost). */
function mantissa(v: number, p: number): number {
  const m = Math.round(v * p);
  return m / p === v && m < MANTISSA_LIMIT && m > -MANTISSA_LIMIT && (m !== 0 || 1 / v > 0) ? m : Number.NaN;
}

/** Writes a change within ±CHANGE_LIMIT in the fewest bits of the five widths. */
function writeChange(b: BitWriter, c: number): void {
  if (c === 0) b.write(0, 1);
  else if (c >= -7 && c <= 8) b.write(1 | ((c + 7) << 2), 6);
  else if (c >= -127 && c <= 128) b.write(3 | ((c + 127) << 3), 11);
  else if (c >= -4095 && c <= 4096) b.write(7 | ((c + 4095) << 4), 17);
  else {
    b.write(15, 4);
    b.write(c | 0, 32);
  }
}

/** Where readChange left off. */
let readAt = 0;

/** Reads a change written by writeChange at bit o of w; the bit after it is left in readAt. */
function readChange(w: Uint32Array, o: number): number {
  const c = get(w, o, 4);
  if ((c & 1) === 0) {
    readAt = o + 1;
    return 0;
  }
  if ((c & 2) === 0) {
    readAt = o + 6;
    return get(w, o + 2, 4) - 7;
  }
  if ((c & 4) === 0) {
    readAt = o + 11;
    return get(w, o + 3, 8) - 127;
  }
  if ((c & 8) === 0) {
    readAt = o + 17;
    return get(w, o + 4, 13) - 4095;
  }
  readAt = o + 36;
  return get(w, o + 4, 32) | 0;
}

/**
 * PointStream's `win`, packed and read here only: the decimal exponent e (bits 0–2), and the XOR
 * window last set: its trailing zeros (bits 3–8) and its leading zeros + 1 (bits 9–14; 0: no
 * window yet).
 */
const exponentOf = (win: number) => win & 7;
/** The window's leading zeros; -1 when no window was set yet. */
const windowLz = (win: number) => (win >>> 9) - 1;
const windowTz = (win: number) => (win >>> 3) & 63;
/** `win` with the XOR window of lz leading and tz trailing zeros set, e kept. */
const withWindow = (win: number, lz: number, tz: number) => exponentOf(win) | (tz << 3) | ((lz + 1) << 9);

/**
 * A class rather than functions over a state object so that the head that keeps its points in
 * one (collector/store/metrics/head.ts) extends it: one object a series for both instead of two
 * (a slow series' head with 20 points: 418 → 322 bytes, issue 28). Its members are named so as
 * not to clash with the head's. It does not count its points (its owner does: the head's length)
 * and keeps no more fields than it must: each is 8 bytes of every series' head.
 */
export class PointStream extends BitWriter {
  /** The last point's timestamp (shared with the head that extends this) and the step from the one before it. */
  protected lastT = 0;
  private step = 0;
  /** The last value's words. */
  private pl = 0;
  private ph = 0;
  /** The decimal exponent and the XOR window last set, packed (exponentOf, windowLz, windowTz above). */
  private win = 0;
  /** The last value's mantissa's difference from the one before (the mantissa itself is found again from pl, ph and e). */
  private d = 0;

  constructor() {
    super(0);
  }

  /** FIRST_WORDS, then half again as many words (a slow head's stream grows a little at a time: less room unused than doubling). */
  protected override grow(): Uint32Array {
    const g = new Uint32Array(Math.max(FIRST_WORDS, this.words.length + (this.words.length >> 1)));
    g.set(this.words);
    this.words = g;
    return g;
  }

  /** Bytes the stream holds (its words' capacity). */
  get streamBytes(): number {
    return this.words.byteLength;
  }

  /** Empties the stream for the next points. */
  clearStream(): void {
    if (this.words.length > KEEP_WORDS) this.words = new Uint32Array(FIRST_WORDS);
    this.reset(0);
    this.win = 0;
  }

  /**
   * Appends a point whose timestamp follows the last one's; false, having written nothing,
   * when its timestamp cannot be encoded (see above).
   */
  push(t: number, v: number): boolean {
    f64[0] = v;
    const l = u32[0]!;
    const h = u32[1]!;
    if (this.bitLength === 0) {
      if (!Number.isSafeInteger(t)) return false;
      let e = 0;
      while (e < POW10.length - 1 && Number.isNaN(mantissa(v, POW10[e]!))) e++;
      if (Number.isNaN(mantissa(v, POW10[e]!))) e = 0;
      f64[0] = t;
      this.write(u32[0]!, 32);
      this.write(u32[1]!, 32);
      this.write(l, 32);
      this.write(h, 32);
      this.write(e, 3);
      this.lastT = t;
      this.step = 0;
      this.pl = l;
      this.ph = h;
      this.win = e; // no window yet
      this.d = 0;
      return true;
    }
    const step = t - this.lastT;
    const change = step - this.step;
    if (!(step > 0) || !Number.isSafeInteger(t) || change > CHANGE_LIMIT || change < -CHANGE_LIMIT) return false;
    writeChange(this, change);
    this.lastT = t;
    this.step = step;
    const pl = this.pl;
    const ph = this.ph;
    const xl = l ^ pl;
    const xh = h ^ ph;
    this.pl = l;
    this.ph = h;
    if ((xl | xh) === 0) {
      this.write(0, 1);
      this.d = 0;
      return true;
    }
    const win = this.win;
    const p = POW10[exponentOf(win)]!;
    const m = mantissa(v, p);
    u32[0] = pl;
    u32[1] = ph;
    const last = mantissa(f64[0]!, p);
    if (!Number.isNaN(m) && !Number.isNaN(last)) {
      const c = m - last - this.d;
      if (c <= CHANGE_LIMIT && c >= -CHANGE_LIMIT) {
        this.write(1, 2);
        writeChange(this, c);
        this.d = m - last;
        return true;
      }
    }
    this.d = Number.isNaN(m) || Number.isNaN(last) ? 0 : m - last;
    let lz = xh !== 0 ? Math.clz32(xh) : 32 + Math.clz32(xl);
    const tz = xl !== 0 ? ctz(xl) : 32 + ctz(xh);
    const plz = windowLz(win);
    const ptz = windowTz(win);
    if (plz >= 0 && lz >= plz && tz >= ptz) {
      this.write(3, 3);
      writeWindow(this, xh, xl, ptz, 64 - plz - ptz);
    } else {
      if (lz > 31) lz = 31;
      const w = 64 - lz - tz;
      this.write(7 | (lz << 3) | ((w - 1) << 8), 14);
      writeWindow(this, xh, xl, tz, w);
      this.win = withWindow(win, lz, tz);
    }
    return true;
  }

  /** Decodes every point into ts and nums (room for them all) from index `at`; returns the number of points. */
  decodeStream(ts: Float64Array, nums: Float64Array, at: number): number {
    const end = this.bitLength;
    if (end === 0) return 0;
    const w = this.words;
    u32[0] = get(w, 0, 32);
    u32[1] = get(w, 32, 32);
    let t = f64[0]!;
    let pl = get(w, 64, 32);
    let ph = get(w, 96, 32);
    u32[0] = pl;
    u32[1] = ph;
    let v = f64[0]!;
    const p = POW10[get(w, 128, 3)]!;
    let m = mantissa(v, p);
    let d = 0;
    let lz = -1;
    let tz = 0;
    let width = 0;
    let o = 131;
    ts[at] = t;
    nums[at] = v;
    let step = 0;
    let i = 1;
    for (; o < end; i++) {
      step += readChange(w, o);
      t += step;
      o = readAt;
      const c = get(w, o, 14);
      if ((c & 1) === 0) {
        o += 1;
        d = 0;
      } else if ((c & 2) === 0) {
        d += readChange(w, o + 2);
        o = readAt;
        m += d;
        v = m / p;
        f64[0] = v;
        pl = u32[0]!;
        ph = u32[1]!;
      } else {
        if (c & 4) {
          lz = (c >>> 3) & 31;
          width = (c >>> 8) + 1;
          tz = 64 - lz - width;
          o += 14;
        } else o += 3;
        let lo: number;
        let hi = 0;
        if (width > 32) {
          lo = get(w, o, 32);
          hi = get(w, o + 32, width - 32);
        } else lo = get(w, o, width);
        o += width;
        // Shift the window back into place.
        if (tz >= 32) ph ^= lo << (tz - 32);
        else if (tz === 0) {
          pl ^= lo;
          ph ^= hi;
        } else {
          pl ^= lo << tz;
          ph ^= (hi << tz) | (lo >>> (32 - tz));
        }
        u32[0] = pl;
        u32[1] = ph;
        v = f64[0]!;
        const next = mantissa(v, p);
        d = Number.isNaN(next) || Number.isNaN(m) ? 0 : next - m;
        m = next;
      }
      ts[at + i] = t;
      nums[at + i] = v;
    }
    if (o > end) corrupt("point stream read past its end");
    return i;
  }
}
