/**
 * Large CBOR encodings in buffers of their own (chunks, definitions, merged rows, batches),
 * freed by their caller once done with them.
 */
import type { Encoder } from "cbor-x";
import { releaseBuffer } from "../runtime/release-buffer.ts";

/**
 * cbor-x encodes into one buffer shared by all its encoders, grown to four times an encoding
 * that does not fit and kept: a 1.5 MB batch would leave about 7 MB held for good, and cost
 * that much allocation each time (a scraping agent's RSS). An encoding expected to be large
 * gets a buffer of its own, sized to it (the result is a view of it, no copy), and the encoder
 * goes back to a small one afterwards. A low estimate only means cbor-x grows it as before.
 */
const LARGE_ENCODING = 256 * 1024;

/** Buffers of large encodings, which their caller may release (releaseEncoding). */
const ownBuffers = new WeakSet<ArrayBufferLike>();

export function encodeSized(enc: Encoder, value: unknown, estimate: number): Uint8Array {
  if (estimate < LARGE_ENCODING) return enc.encode(value);
  // Buffers, as cbor-x allocates its own (it writes strings with Buffer's utf8Write).
  const e = enc as unknown as { useBuffer(b: Uint8Array): void };
  e.useBuffer(Buffer.allocUnsafeSlow(Math.ceil(estimate * 1.1) + 8192));
  const out = enc.encode(value);
  // Whether cbor-x wrote into that buffer or grew into one of its own, the encoder lets go of it here.
  e.useBuffer(Buffer.allocUnsafeSlow(8192));
  ownBuffers.add(out.buffer);
  return out;
}

/** True when `bytes` is a large encoding in a buffer of its own (not yet released). */
export function isOwnEncoding(bytes: Uint8Array): boolean {
  return ownBuffers.has(bytes.buffer);
}

/**
 * A buffer for an encoding of exactly `size` bytes written by hand (point-chunk.ts): a large one
 * of its own, which releaseEncoding frees, as for cbor-x's large encodings above.
 */
export function ownedEncodingBuffer(size: number): Buffer {
  if (size < LARGE_ENCODING) return Buffer.allocUnsafe(size);
  const out = Buffer.allocUnsafeSlow(size);
  ownBuffers.add(out.buffer);
  return out;
}

/**
 * Frees the memory of an encoding at once when it had a buffer of its own (a large one), for
 * a caller that is done with it and gave it to no one who keeps it (src/runtime/release-buffer.ts).
 * Small encodings share the encoder's buffer and are left alone.
 */
export function releaseEncoding(bytes: Uint8Array): void {
  if (!ownBuffers.delete(bytes.buffer)) return;
  releaseBuffer(bytes);
}
