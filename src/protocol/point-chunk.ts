/**
 * Point chunks written by hand: the CBOR that cbor-x (with records, src/protocol/cbor.ts) writes
 * for an array of writes `{type, id, points}` of gauges or counters whose points are plain
 * `{timestamp, value}` numbers, byte for byte, in a buffer of exactly its size. A scrape's
 * chunks are all of this shape; cbor-x spent about 10 % of a scraping agent's time on them and
 * grew its buffer past an estimate, and each write's keys were walked to find its record
 * (docs/inputs.md, "Measured"). Anything else (other types, tags on points, other keys or key
 * order in a point, non-numbers) is left to cbor-x: `encodePointChunk` answers undefined.
 *
 * What cbor-x writes, and so what is written here: the chunk's array header; the first write
 * as a record defined in place (tag 0xdfff: [0xe000, ["type", "id", "points"], ...values]),
 * the others as references to it (tag 0xe000, then an array of the three values); the first
 * point the same way as record 0xe001 with keys ["timestamp", "value"]. Numbers: integers of
 * 32 bits as CBOR integers (negative ones down to -2^32), all others as float64. Strings:
 * UTF-8 with the shortest header; below 64 characters cbor-x encodes by hand (a lone surrogate
 * as its three bytes), longer ones with Buffer's utf8Write (a lone surrogate as U+FFFD), as here.
 */
import type { MetricWrite } from "../metrics/model.ts";
import { ownedEncodingBuffer } from "./sized-encoding.ts";

const ascii = (s: string) => Array.from(s, (c) => c.charCodeAt(0));
/** Tag 0xdfff, an array of 5: record 0xe000, its keys, then the write's three values. */
const WRITE_DEFINED = [0xd9, 0xdf, 0xff, 0x85, 0x19, 0xe0, 0x00, 0x83, 0x64, ...ascii("type"), 0x62, ...ascii("id"), 0x66, ...ascii("points")];
const WRITE_REF = [0xd9, 0xe0, 0x00, 0x83];
/** Tag 0xdfff, an array of 4: record 0xe001, its keys, then the point's two values. */
const POINT_DEFINED = [0xd9, 0xdf, 0xff, 0x84, 0x19, 0xe0, 0x01, 0x82, 0x69, ...ascii("timestamp"), 0x65, ...ascii("value")];
const POINT_REF = [0xd9, 0xe0, 0x01, 0x82];
const TYPE_TEXT = { gauge: [0x65, ...ascii("gauge")], counter: [0x67, ...ascii("counter")] };

/** Below this many characters cbor-x writes a string's UTF-8 itself; from it on, utf8Write does. */
const HAND_WRITTEN = 0x40;

/** True for a plain object with exactly the keys timestamp and value, in that order, both numbers. */
function isPlainPoint(p: unknown): p is { timestamp: number; value: number } {
  if (typeof p !== "object" || p === null || p.constructor !== Object) return false;
  let k = 0;
  for (const key in p) {
    if (key !== (k === 0 ? "timestamp" : k === 1 ? "value" : "")) return false;
    k++;
  }
  const q = p as { timestamp: unknown; value: unknown };
  return k === 2 && typeof q.timestamp === "number" && typeof q.value === "number";
}

/** Bytes of a CBOR header (or integer) of length or value n, shortest form. */
const headerSize = (n: number) => (n < 0x18 ? 1 : n < 0x100 ? 2 : n < 0x10000 ? 3 : 5);

/** Bytes of a number as cbor-x writes it (no float32): an integer of 32 bits as a header of its own, else float64. */
function numberSize(v: number): number {
  if (v >>> 0 === v) return headerSize(v);
  if (v < 0 && v >= -0x100000000 && Math.floor(v) === v) return headerSize(-1 - v);
  return 9;
}

/** UTF-8 bytes of s as cbor-x writes it (see the header comment on lone surrogates). */
function utf8Length(s: string): number {
  const n = s.length;
  if (n >= HAND_WRITTEN) return Buffer.byteLength(s, "utf8");
  let bytes = 0;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) bytes++;
    else if (c < 0x800) bytes += 2;
    else if ((c & 0xfc00) === 0xd800 && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

class ChunkWriter {
  pos = 0;
  private readonly view: DataView;

  constructor(readonly out: Buffer) {
    this.view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  }

  bytes(b: readonly number[]): void {
    for (let i = 0; i < b.length; i++) this.out[this.pos++] = b[i]!;
  }

  /** A header of major type `major` (0/1 integers, 3 text, 4 array) for n, shortest form. */
  header(major: number, n: number): void {
    const m = major << 5;
    if (n < 0x18) this.out[this.pos++] = m | n;
    else if (n < 0x100) {
      this.out[this.pos++] = m | 24;
      this.out[this.pos++] = n;
    } else if (n < 0x10000) {
      this.out[this.pos++] = m | 25;
      this.view.setUint16(this.pos, n);
      this.pos += 2;
    } else {
      this.out[this.pos++] = m | 26;
      this.view.setUint32(this.pos, n);
      this.pos += 4;
    }
  }

  /** An integer of 32 bits as a CBOR integer (major 0, or 1 for -1 - v), any other number as float64. */
  number(v: number): void {
    if (v >>> 0 === v) this.header(0, v);
    else if (v < 0 && v >= -0x100000000 && Math.floor(v) === v) this.header(1, -1 - v);
    else {
      this.out[this.pos++] = 0xfb;
      this.view.setFloat64(this.pos, v);
      this.pos += 8;
    }
  }

  text(s: string, bytes: number): void {
    this.header(3, bytes);
    const n = s.length;
    if (n >= HAND_WRITTEN) {
      this.pos += (this.out as Buffer & { utf8Write(s: string, at: number, max: number): number }).utf8Write(s, this.pos, bytes);
      return;
    }
    const out = this.out;
    for (let i = 0; i < n; i++) {
      let c = s.charCodeAt(i);
      if (c < 0x80) out[this.pos++] = c;
      else if (c < 0x800) {
        out[this.pos++] = (c >> 6) | 0xc0;
        out[this.pos++] = (c & 0x3f) | 0x80;
      } else if ((c & 0xfc00) === 0xd800 && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
        c = 0x10000 + ((c & 0x03ff) << 10) + (s.charCodeAt(++i) & 0x03ff);
        out[this.pos++] = (c >> 18) | 0xf0;
        out[this.pos++] = ((c >> 12) & 0x3f) | 0x80;
        out[this.pos++] = ((c >> 6) & 0x3f) | 0x80;
        out[this.pos++] = (c & 0x3f) | 0x80;
      } else {
        out[this.pos++] = (c >> 12) | 0xe0;
        out[this.pos++] = ((c >> 6) & 0x3f) | 0x80;
        out[this.pos++] = (c & 0x3f) | 0x80;
      }
    }
  }
}

/**
 * The chunk of `writes` as cbor-x encodes it (createEncoder), or undefined when a write is not
 * of the shape written here. Large chunks get a buffer of their own (releaseEncoding frees it).
 */
export function encodePointChunk(writes: readonly MetricWrite[]): Uint8Array | undefined {
  // First pass: the shape, and the exact size (ids' UTF-8 lengths kept for the second).
  const idBytes = new Int32Array(writes.length);
  let size = headerSize(writes.length);
  let anyPoint = false;
  for (let i = 0; i < writes.length; i++) {
    const w = writes[i]!;
    const type = w.type;
    if ((type !== "gauge" && type !== "counter") || typeof w.id !== "string" || w.points?.constructor !== Array) return undefined;
    const n = utf8Length(w.id);
    idBytes[i] = n;
    size += WRITE_REF.length + TYPE_TEXT[type].length + headerSize(n) + n + headerSize(w.points.length);
    for (const p of w.points) {
      if (!isPlainPoint(p)) return undefined;
      size += POINT_REF.length + numberSize(p.timestamp) + numberSize(p.value);
      anyPoint = true;
    }
  }
  if (writes.length > 0) size += WRITE_DEFINED.length - WRITE_REF.length;
  if (anyPoint) size += POINT_DEFINED.length - POINT_REF.length;
  const w = new ChunkWriter(ownedEncodingBuffer(size));
  w.header(4, writes.length);
  let pointDefined = false;
  for (let i = 0; i < writes.length; i++) {
    const write = writes[i]!;
    w.bytes(i === 0 ? WRITE_DEFINED : WRITE_REF);
    w.bytes(TYPE_TEXT[write.type as "gauge" | "counter"]);
    w.text(write.id, idBytes[i]!);
    w.header(4, write.points.length);
    for (const p of write.points as { timestamp: number; value: number }[]) {
      w.bytes(pointDefined ? POINT_REF : POINT_DEFINED);
      pointDefined = true;
      w.number(p.timestamp);
      w.number(p.value);
    }
  }
  if (w.pos !== size) throw new Error(`point chunk: wrote ${w.pos} bytes of ${size}`);
  return w.out;
}
