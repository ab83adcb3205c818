import { decode, encode } from "../../../src/cbor/cbor.ts";
import type { Tags } from "../../../src/metrics/model.ts";
import type { Run } from "../../../src/metrics/run.ts";

/**
 * Chunk format 0, of databases before metrics.db schema version 3: column blobs, numeric
 * columns as raw little-endian float64 (16 bytes a point). Still read (chunks of that layout
 * stay until retention removes them); new chunks are point-codec blocks (sqlite/chunks.ts).
 * encodeChunk remains for the tests that build databases of the old layout.
 */
export interface ChunkBlobs {
  ts: Uint8Array;
  vals: Uint8Array;
  tags: Uint8Array | null;
}

function f64Bytes(a: Float64Array): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}

function bytesF64(b: Uint8Array): Float64Array {
  // A view needs 8-byte alignment; SQLite blobs normally arrive at offset 0.
  if (b.byteOffset % 8 === 0) return new Float64Array(b.buffer, b.byteOffset, b.byteLength >>> 3);
  // A copy of its own (a Buffer's slice() would be a view of the same memory, still unaligned).
  return new Float64Array(new Uint8Array(b).buffer);
}

export function encodeChunk(r: Run): ChunkBlobs {
  const hasTags = r.tags?.some((t) => t !== undefined) ?? false;
  return {
    ts: f64Bytes(r.ts),
    vals: r.nums ? f64Bytes(r.nums) : encode(r.strs ?? []),
    tags: hasTags ? encode(r.tags!.map((t) => t ?? null)) : null,
  };
}

export function decodeChunk(b: ChunkBlobs, numeric: boolean): Run {
  const run: Run = { ts: bytesF64(b.ts) };
  if (numeric) run.nums = bytesF64(b.vals);
  else run.strs = decode(b.vals) as string[];
  if (b.tags) run.tags = (decode(b.tags) as (Tags | null)[]).map((t) => t ?? undefined);
  return run;
}
