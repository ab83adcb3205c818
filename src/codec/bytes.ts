import { corrupt } from "./errors.ts";

const TWO32 = 2 ** 32;

/**
 * A growable byte buffer with LEB128 varints. Unsigned varints carry integers up to 2^53 (the
 * safe range) using float arithmetic above 2^31, so no BigInt is needed.
 */
export class ByteWriter {
  buf: Uint8Array<ArrayBuffer>;
  pos = 0;

  constructor(capacity = 256) {
    this.buf = new Uint8Array(capacity);
  }

  ensure(extra: number): void {
    const need = this.pos + extra;
    if (need <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < need) cap *= 2;
    const b = new Uint8Array(cap);
    b.set(this.buf.subarray(0, this.pos));
    this.buf = b;
  }

  byte(b: number): void {
    this.ensure(1);
    this.buf[this.pos++] = b;
  }

  bytes(b: Uint8Array): void {
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  /** Unsigned integer in [0, 2^53]. */
  varuint(x: number): void {
    this.ensure(8);
    const buf = this.buf;
    let p = this.pos;
    while (x >= 0x80000000) {
      buf[p++] = (x % 128) | 0x80;
      x = Math.floor(x / 128);
    }
    while (x >= 0x80) {
      buf[p++] = (x & 0x7f) | 0x80;
      x >>>= 7;
    }
    buf[p++] = x;
    this.pos = p;
  }

  /** Signed integer with |x| <= 2^52, zigzag-mapped. */
  varint(x: number): void {
    this.varuint(zigzag(x));
  }

  u32(x: number): void {
    this.ensure(4);
    const buf = this.buf;
    buf[this.pos++] = x & 0xff;
    buf[this.pos++] = (x >>> 8) & 0xff;
    buf[this.pos++] = (x >>> 16) & 0xff;
    buf[this.pos++] = (x >>> 24) & 0xff;
  }

  finish(): Uint8Array<ArrayBuffer> {
    return this.buf.subarray(0, this.pos);
  }
}

/** Bytes ByteWriter.varuint writes for x in [0, 2^53]. */
export function varuintSize(x: number): number {
  let s = 1;
  while (x >= 128) {
    x = Math.floor(x / 128);
    s++;
  }
  return s;
}

let aligned = new Uint32Array(1024);
/** Its bytes (one view kept: making a view per call measured as much as the copy). */
let alignedBytes = new Uint8Array(aligned.buffer);

/** `bytes` copied into the shared word buffer from its word 0, zero-padded by two words. */
function alignedCopy(bytes: Uint8Array): Uint32Array {
  const n = ((bytes.length + 3) >>> 2) + 2;
  if (aligned.length < n) {
    aligned = new Uint32Array(Math.max(n, aligned.length * 2));
    alignedBytes = new Uint8Array(aligned.buffer);
  }
  aligned[n - 3] = 0;
  aligned[n - 2] = 0;
  aligned[n - 1] = 0;
  alignedBytes.set(bytes);
  return aligned;
}

/** Reads what ByteWriter wrote; every read past `end` or malformed varint is a PointCodecError. */
export class ByteReader {
  private wordsCopy: Uint32Array | undefined;

  constructor(
    readonly buf: Uint8Array,
    public pos: number,
    readonly end: number,
  ) {}

  /**
   * The bytes as 32-bit little-endian words (a copy, 4-byte aligned, zero-padded by two words),
   * for reading bit-packed sections at bit offset pos × 8. One shared buffer: valid until the
   * next ByteReader asks for its words.
   */
  words(): Uint32Array {
    if (this.wordsCopy) return this.wordsCopy;
    this.wordsCopy = alignedCopy(this.buf);
    return this.wordsCopy;
  }

  /**
   * The bytes from `at` on as 32-bit little-endian words, word 0 starting at byte `at` (so that
   * bit-packed groups starting there are word-aligned), zero-padded by two words. The shared
   * buffer words() gives, so that copy is gone.
   */
  wordsAt(at: number): Uint32Array {
    this.wordsCopy = undefined;
    return alignedCopy(at === 0 ? this.buf : this.buf.subarray(at));
  }

  byte(): number {
    if (this.pos >= this.end) corrupt("unexpected end of data");
    return this.buf[this.pos++]!;
  }

  /** A view of the next `n` bytes (no copy). */
  take(n: number): Uint8Array {
    if (n > this.end - this.pos) corrupt("unexpected end of data");
    const v = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return v;
  }

  varuint(): number {
    let x = 0;
    let scale = 1;
    for (let i = 0; i < 8; i++) {
      const b = this.byte();
      x += (b & 0x7f) * scale;
      if (b < 0x80) {
        if (x > 2 ** 53) corrupt("varint out of range");
        return x;
      }
      scale *= 128;
    }
    return corrupt("varint too long");
  }

  varint(): number {
    return unzigzag(this.varuint());
  }

  /** A count that must fit in what is left of the data, `unit` bytes per item at least. */
  count(unit: number): number {
    const n = this.varuint();
    if (n * unit > this.end - this.pos) corrupt("count larger than the data");
    return n;
  }

  u32(): number {
    const b = this.take(4);
    return (b[0]! | (b[1]! << 8) | (b[2]! << 16) | (b[3]! << 24)) >>> 0;
  }
}

/** Zigzag mapping of a signed integer with |x| <= 2^52 onto [0, 2^53]. */
export function zigzag(x: number): number {
  if (x >= -0x40000000 && x < 0x40000000) return ((x << 1) ^ (x >> 31)) >>> 0;
  return x >= 0 ? x * 2 : -x * 2 - 1;
}

export function unzigzag(z: number): number {
  if (z < TWO32) return (z >>> 1) ^ -(z & 1);
  return z % 2 === 0 ? z / 2 : -(z + 1) / 2;
}
