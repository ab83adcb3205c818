import type { SQL } from "bun";
import { numbered } from "../../../../src/postgres/connect.ts";
import { chunkPieces } from "../pieces.ts";
import type { Run } from "../../../../src/metrics/run.ts";
import { encodeChunkBlock } from "../sqlite/chunks.ts";

/**
 * Sealed chunks of the PostgreSQL metrics store: a series' merged points cut as on SQLite
 * (chunkPieces: ≤ one UTC day, chunkPoints to 2 × chunkPoints − 1 points) into point-codec
 * blocks. Shared by the seal (seal.ts) and by the schema step that seals the rows of the
 * previous layout (schema.ts).
 */

/**
 * Inserts the chunks of `run` (sorted, no duplicates) for series `sid` inside transaction `t`;
 * `expiry(a, b)` is the expiry of points [a, b), the latest of theirs: points written at
 * different times share a chunk, which lives as long as the longest-lived of them.
 */
export async function insertChunks(t: SQL, sid: number, run: Run, chunkPoints: number, expiry: (a: number, b: number) => number): Promise<void> {
  for (const [a, b] of chunkPieces(run.ts, chunkPoints)) {
    const part: Run = { ts: run.ts.subarray(a, b), nums: run.nums?.subarray(a, b), strs: run.strs?.slice(a, b), tags: run.tags?.slice(a, b) };
    await t.unsafe(numbered("INSERT INTO metric_chunks (sid, start_ts, end_ts, n, expires_at, body) VALUES (?, ?, ?, ?, ?, ?)"), [
      sid,
      run.ts[a]!,
      run.ts[b - 1]!,
      b - a,
      expiry(a, b),
      encodeChunkBlock(part),
    ]);
  }
  if (run.ts.length > 0) {
    await t.unsafe(numbered("UPDATE metric_series SET min_ts = least(min_ts, ?), max_ts = greatest(max_ts, ?) WHERE sid = ?"), [
      run.ts[0]!,
      run.ts.at(-1)!,
      sid,
    ]);
  }
}
