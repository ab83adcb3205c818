import type { Database } from "bun:sqlite";
import { storageFailure } from "../../src/sqlite/storage-failure.ts";

/** Chunk ids lo..hi, inclusive (an acknowledged batch). */
export type Span = [number, number];

export interface SpanRemoval {
  points: number;
  bytes: number;
  chunks: number;
  /** False when some of the spans could not be deleted (they are to be tried again later). */
  complete: boolean;
}

/**
 * Deletes the spans in one transaction. When the disk is full, tries again at once if
 * `failed` made room (the space reserve released), then in halves, down to a single id: a
 * delete that small fits in the room the write-ahead log already has. Returns what was deleted;
 * deleting a span again later is harmless (its rows are gone).
 */
export function removeSpans(
  db: Database,
  removeSpan: (lo: number, hi: number) => { n: number; bytes: number }[],
  spans: Span[],
  failed: (e: unknown) => boolean,
  committed: () => void,
): SpanRemoval {
  const r: SpanRemoval = { points: 0, bytes: 0, chunks: 0, complete: true };
  try {
    db.transaction(() => {
      for (const [lo, hi] of spans) {
        for (const row of removeSpan(lo, hi)) {
          r.points += row.n;
          r.bytes += row.bytes;
          r.chunks++;
        }
      }
    })();
  } catch (e) {
    const madeRoom = failed(e);
    if (storageFailure(e) !== "full") return { points: 0, bytes: 0, chunks: 0, complete: false };
    if (madeRoom) return removeSpans(db, removeSpan, spans, failed, committed);
    const halves = halve(spans);
    if (!halves) return { points: 0, bytes: 0, chunks: 0, complete: false };
    const a = removeSpans(db, removeSpan, halves[0], failed, committed);
    const b = a.complete ? removeSpans(db, removeSpan, halves[1], failed, committed) : { points: 0, bytes: 0, chunks: 0, complete: false };
    return { points: a.points + b.points, bytes: a.bytes + b.bytes, chunks: a.chunks + b.chunks, complete: b.complete };
  }
  committed();
  return r;
}

/** Two halves of a list of spans, or of its one span's ids; undefined for a single id. */
function halve(spans: Span[]): [Span[], Span[]] | undefined {
  if (spans.length > 1) {
    const mid = Math.ceil(spans.length / 2);
    return [spans.slice(0, mid), spans.slice(mid)];
  }
  const [lo, hi] = spans[0]!;
  if (lo >= hi) return undefined;
  const mid = Math.floor((lo + hi) / 2);
  return [[[lo, mid]], [[mid + 1, hi]]];
}
