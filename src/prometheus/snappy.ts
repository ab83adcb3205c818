/**
 * Snappy block decompression of remote-write bodies, in JavaScript (`snappyjs`): on Bun it takes
 * 0.6–0.7 of the CPU time of the native napi-rs build (`snappy`), and a single-file binary then
 * carries no native addon, so the same build runs on every target (docs/prometheus.md, "Snappy").
 */
import SnappyJS from "snappyjs";

/** The uncompressed bytes of a snappy block; throws on a malformed one or one announcing more than `maxBytes`. */
export function uncompressSnappy(block: Uint8Array, maxBytes = Number.POSITIVE_INFINITY): Uint8Array {
  // A plain Uint8Array view: snappyjs then writes into a Uint8Array, faster under Bun than a Buffer.
  return SnappyJS.uncompress(new Uint8Array(block.buffer, block.byteOffset, block.byteLength), maxBytes);
}
