/**
 * A JSON byte writer for large API responses: ASCII and numbers go straight into a buffer
 * (no intermediate string per value), full chunks are handed out as they fill, so a response
 * of millions of points is produced and sent piece by piece.
 */
import { formatSampleValue, formatTimestamp } from "../promql/format.ts";

const encoder = new TextEncoder();
/** Integers below this are written digit by digit; they are exact and never use an exponent. */
const EXACT_INT = 2 ** 53;

export class JsonBytes {
  private buf: Uint8Array;
  private pos = 0;
  /** Bytes in chunks already filled. */
  private filled = 0;
  private readonly full: Uint8Array[] = [];
  private readonly digits = new Uint8Array(20);

  /**
   * `spare`: chunks handed out before whose bytes their reader is done with (respond.ts: a
   * socket's sink copies what it is given); a new chunk is taken from there before allocating.
   */
  constructor(
    private readonly chunkBytes = 256 * 1024,
    private readonly spare?: Uint8Array[],
  ) {
    this.buf = this.fresh(chunkBytes);
  }

  private fresh(n: number): Uint8Array {
    const s = this.spare;
    while (s && s.length > 0) {
      const b = s.pop()!;
      if (b.length >= n) return b;
    }
    return new Uint8Array(n);
  }

  private room(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    if (this.pos > 0) this.full.push(this.buf.subarray(0, this.pos));
    this.filled += this.pos;
    this.buf = this.fresh(Math.max(this.chunkBytes, n));
    this.pos = 0;
  }

  /** Any text, UTF-8 encoded (labels, JSON produced by JSON.stringify). */
  text(s: string): void {
    this.room(s.length * 3);
    this.pos += encoder.encodeInto(s, this.buf.subarray(this.pos)).written;
  }

  /** Text known to be ASCII (numbers, punctuation): copied code unit by code unit. */
  ascii(s: string): void {
    this.room(s.length);
    const b = this.buf;
    let p = this.pos;
    for (let i = 0; i < s.length; i++) b[p++] = s.charCodeAt(i);
    this.pos = p;
  }

  /** Bytes src[from..to) (short runs: a loop beats TypedArray.set). */
  copy(src: Uint8Array, from: number, to: number): void {
    this.room(to - from);
    const b = this.buf;
    let p = this.pos;
    for (let i = from; i < to; i++) b[p++] = src[i]!;
    this.pos = p;
  }

  byte(c: number): void {
    this.room(1);
    this.buf[this.pos++] = c;
  }

  /** A non-negative integer below 2^53, in decimal. */
  private uint(v: number): void {
    const d = this.digits;
    let n = 0;
    do {
      const q = Math.floor(v / 10);
      d[n++] = 48 + (v - q * 10);
      v = q;
    } while (v > 0);
    this.room(n);
    const b = this.buf;
    let p = this.pos;
    while (n > 0) b[p++] = d[--n]!;
    this.pos = p;
  }

  /** A sample value as Prometheus writes it (see formatSampleValue), without quotes. */
  sampleValue(v: number): void {
    if (Number.isInteger(v) && v < EXACT_INT && v > -EXACT_INT && !Object.is(v, -0)) {
      if (v < 0) {
        this.byte(45);
        this.uint(-v);
      } else this.uint(v);
      return;
    }
    this.ascii(formatSampleValue(v));
  }

  /** A timestamp in ms as Prometheus writes it: seconds, with up to three decimals. */
  timestamp(ms: number): void {
    const a = Math.abs(Math.round(ms));
    if (!(a < EXACT_INT)) {
      this.ascii(formatTimestamp(ms));
      return;
    }
    if (ms < 0) this.byte(45);
    const secs = Math.floor(a / 1000);
    const frac = a - secs * 1000;
    this.uint(secs);
    if (frac === 0) return;
    this.room(4);
    const b = this.buf;
    b[this.pos++] = 46;
    b[this.pos++] = 48 + Math.floor(frac / 100);
    b[this.pos++] = 48 + (Math.floor(frac / 10) % 10);
    b[this.pos++] = 48 + (frac % 10);
  }

  /** Bytes written so far. */
  get length(): number {
    return this.filled + this.pos;
  }

  /** The chunks filled since the last call. */
  take(): Uint8Array[] {
    return this.full.splice(0);
  }

  /** Every remaining byte, the current chunk included. */
  end(): Uint8Array[] {
    if (this.pos > 0) this.full.push(this.buf.subarray(0, this.pos));
    this.filled += this.pos;
    this.buf = new Uint8Array(0);
    this.pos = 0;
    return this.take();
  }
}
