/**
 * Snappy block decompression of remote-write bodies, in JavaScript: a single-file binary then
 * carries no native addon, so the same build runs on every target (docs/prometheus.md,
 * "Snappy"). Written here rather than taken from `snappyjs` (which the tests keep as a
 * reference) so that the output can go into a buffer reused from request to request: Prometheus
 * sends dozens of small requests a second, and a fresh output buffer for each was fresh memory
 * (page faults) per request (issue 28, docs/storage.md). Literals and long back references are
 * copied with `set`/`copyWithin` instead of a byte at a time.
 */

export class SnappyError extends Error {}

/** Bytes of output one byte of elements yields at most (a copy element: 3 bytes, 64 out). */
const MAX_RATIO = 22;

/** A reusable output buffer: kept up to `maxKept` bytes; larger outputs get a buffer of their own. */
export class SnappyScratch {
  private buf = new Uint8Array(64 * 1024);

  constructor(readonly maxKept = 8 * 1024 * 1024) {}

  /** A buffer of `n` bytes: the scratch (valid until the next take) or, past `maxKept`, a new one. */
  take(n: number): Uint8Array {
    if (n > this.maxKept) return new Uint8Array(n);
    if (n > this.buf.length) {
      let size = this.buf.length;
      while (size < n) size *= 2;
      this.buf = new Uint8Array(Math.min(size, this.maxKept));
    }
    return this.buf.subarray(0, n);
  }

  /** Whether `bytes` lie in the scratch (so must not be released or kept). */
  owns(bytes: Uint8Array): boolean {
    return bytes.buffer === this.buf.buffer;
  }
}

/** The announced uncompressed length of a block (a varint of at most 32 bits), or -1. */
export function snappyLength(block: Uint8Array): number {
  let n = 0;
  for (let i = 0, shift = 1; i < 5 && i < block.length; i++, shift *= 128) {
    n += (block[i]! & 0x7f) * shift;
    if (!(block[i]! & 0x80)) return n <= 0xffffffff ? n : -1;
  }
  return -1;
}

function headerLength(block: Uint8Array): number {
  let i = 0;
  while (block[i]! & 0x80) i++;
  return i + 1;
}

/**
 * The uncompressed bytes of a snappy block; throws SnappyError on a malformed block (one whose
 * elements do not produce exactly the announced length) or one announcing more than `maxBytes`.
 * With `scratch`, the bytes are the scratch's (valid until its next use) unless they exceed it.
 */
export function uncompressSnappy(block: Uint8Array, maxBytes = Number.POSITIVE_INFINITY, scratch?: SnappyScratch): Uint8Array {
  const length = snappyLength(block);
  if (length < 0) throw new SnappyError("invalid length header");
  if (length > maxBytes) throw new SnappyError(`the uncompressed length of ${length} is more than ${maxBytes}`);
  const end = block.length;
  let pos = headerLength(block);
  // No element yields more than 64 bytes from 3 (a copy with a 2-byte offset): a block announcing
  // more than 22 times its size cannot be valid, and is refused before that much is allocated.
  if (length > MAX_RATIO * (end - pos)) throw new SnappyError(`the announced length of ${length} is more than ${end - pos} bytes of elements can yield`);
  const out = scratch ? scratch.take(length) : new Uint8Array(length);
  let o = 0;
  while (pos < end) {
    const tag = block[pos++]!;
    const kind = tag & 3;
    let len: number;
    if (kind === 0) {
      len = (tag >>> 2) + 1;
      if (len > 60) {
        const extra = len - 60;
        if (pos + extra > end) throw new SnappyError("truncated literal length");
        len = 0;
        for (let i = extra - 1; i >= 0; i--) len = len * 256 + block[pos + i]!;
        len += 1;
        pos += extra;
      }
      if (pos + len > end) throw new SnappyError("literal past the end of the block");
      if (o + len > length) throw new SnappyError("more bytes than announced");
      if (len < 16) for (let i = 0; i < len; i++) out[o + i] = block[pos + i]!;
      else out.set(block.subarray(pos, pos + len), o);
      pos += len;
      o += len;
      continue;
    }
    let offset: number;
    if (kind === 1) {
      if (pos >= end) throw new SnappyError("truncated copy");
      len = ((tag >>> 2) & 7) + 4;
      offset = ((tag >>> 5) << 8) | block[pos++]!;
    } else if (kind === 2) {
      if (pos + 2 > end) throw new SnappyError("truncated copy");
      len = (tag >>> 2) + 1;
      offset = block[pos]! | (block[pos + 1]! << 8);
      pos += 2;
    } else {
      if (pos + 4 > end) throw new SnappyError("truncated copy");
      len = (tag >>> 2) + 1;
      offset = (block[pos]! | (block[pos + 1]! << 8) | (block[pos + 2]! << 16) | (block[pos + 3]! << 24)) >>> 0;
      pos += 4;
    }
    if (offset === 0 || offset > o) throw new SnappyError("copy from before the start");
    if (o + len > length) throw new SnappyError("more bytes than announced");
    const from = o - offset;
    // An overlapping copy repeats the last `offset` bytes: byte by byte, as each byte read may just have been written.
    if (offset >= len && len >= 16) out.copyWithin(o, from, from + len);
    else for (let i = 0; i < len; i++) out[o + i] = out[from + i]!;
    o += len;
  }
  if (o !== length) throw new SnappyError("fewer bytes than announced");
  return out;
}
