/**
 * A minimal protocol-buffers reader for the fixed remote-write schema: varints, 64-bit
 * fields and length-delimited fields, with bounds checks (input comes from the network).
 */

export class ProtobufError extends Error {}

// Little-endian doubles (the wire's byte order) read through one scratch: little-endian hosts only.
const SCRATCH_DOUBLE = new Float64Array(1);
const SCRATCH_BYTES = new Uint8Array(SCRATCH_DOUBLE.buffer);
if (new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1) throw new Error("protobuf.ts reads doubles as little-endian: this host is big-endian");

/** Node's Buffer method, on any Uint8Array: the bytes as Latin-1 (ASCII here) without a view. */
const latin1Slice = (Buffer.prototype as unknown as { latin1Slice(this: Uint8Array, start: number, end: number): string }).latin1Slice;

export class ProtoReader {
  pos: number;
  private static readonly text = new TextDecoder("utf-8", { fatal: true });

  constructor(
    readonly buf: Uint8Array,
    start = 0,
    readonly end = buf.length,
  ) {
    this.pos = start;
  }

  done(): boolean {
    return this.pos >= this.end;
  }

  /** A varint as a number (exact up to 2^53; timestamps in ms fit). */
  varint(): number {
    // One byte (field keys, most lengths) in a function small enough for the JIT to inline into
    // the decoders' loops, the longer form apart: varint calls were a sixth of a remote-write
    // decode probe's samples under perf (issue 28).
    const p = this.pos;
    if (p < this.end) {
      const b = this.buf[p]!;
      if (b < 0x80) {
        this.pos = p + 1;
        return b;
      }
    }
    return this.longVarint();
  }

  private longVarint(): number {
    let result = 0;
    let mul = 1;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw new ProtobufError("truncated varint");
      const b = this.buf[this.pos++]!;
      result += (b & 0x7f) * mul;
      if (b < 0x80) return result;
      mul *= 128;
    }
    throw new ProtobufError("varint longer than 10 bytes");
  }

  /** An int64 varint: two's complement for negative values. */
  int64(): number {
    const v = this.varint();
    return v >= 2 ** 63 ? v - 2 ** 64 : v;
  }

  double(): number {
    const p = this.pos;
    if (p + 8 > this.end) throw new ProtobufError("truncated double");
    // Through an 8-byte scratch: DataView's getFloat64 cost about 190 ns a call here, this a few.
    const b = this.buf;
    SCRATCH_BYTES[0] = b[p]!;
    SCRATCH_BYTES[1] = b[p + 1]!;
    SCRATCH_BYTES[2] = b[p + 2]!;
    SCRATCH_BYTES[3] = b[p + 3]!;
    SCRATCH_BYTES[4] = b[p + 4]!;
    SCRATCH_BYTES[5] = b[p + 5]!;
    SCRATCH_BYTES[6] = b[p + 6]!;
    SCRATCH_BYTES[7] = b[p + 7]!;
    this.pos = p + 8;
    return SCRATCH_DOUBLE[0]!;
  }

  /** The end of a length-delimited field's content; the reader stays at its start (no array made). */
  contentEnd(): number {
    const len = this.varint();
    const end = this.pos + len;
    if (end > this.end) throw new ProtobufError("length-delimited field runs past its message");
    return end;
  }

  /** The bounds of a length-delimited field's content; the reader moves past it. */
  bytes(): [number, number] {
    const len = this.varint();
    const start = this.pos;
    if (start + len > this.end) throw new ProtobufError("length-delimited field runs past its message");
    this.pos += len;
    return [start, start + len];
  }

  string(): string {
    const e = this.contentEnd();
    const s = this.pos;
    this.pos = e;
    return this.textAt(s, e);
  }

  /** The text of the bytes [s, e) of the buffer (a string field's content). */
  textAt(s: number, e: number): string {
    const b = this.buf;
    // ASCII (label names and nearly all values): read without a view of the bytes or the
    // decoder, which for 50,000 new remote-write series made a quarter of a million views
    // (issue 28); anything else through the strict UTF-8 decoder.
    let i = s;
    while (i < e && b[i]! < 0x80) i++;
    if (i === e) return latin1Slice.call(b, s, e);
    try {
      return ProtoReader.text.decode(b.subarray(s, e));
    } catch {
      throw new ProtobufError("string field is not valid UTF-8");
    }
  }

  /** Skips a field of the given wire type. */
  skip(wire: number): void {
    if (wire === 0) this.varint();
    else if (wire === 1) this.pos += 8;
    else if (wire === 2) this.bytes();
    else if (wire === 5) this.pos += 4;
    else throw new ProtobufError(`unsupported wire type ${wire}`);
    if (this.pos > this.end) throw new ProtobufError("truncated field");
  }
}
