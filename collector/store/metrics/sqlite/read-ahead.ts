/**
 * Reads, for a whole group of writes, the memory its apply will read, before the apply (issue 28).
 *
 * A remote-write backlog names each of 50,000 series a few times a request, and a request's
 * series lie anywhere in memory: each one's object, head and stream were a cache miss in turn,
 * one after the other, while the apply did the work of each. A loop that does nothing else but
 * read them lets the processor have many of those misses under way at once; the apply after
 * finds them in the cache.
 */
import type { SeriesSlot } from "../../../../src/metrics/write-columns.ts";
import { isLive, type SeriesMeta } from "./state.ts";

/** What the reads summed to: kept, so that the engine does not leave them out. */
export let readAheadSum = 0;

/** The series objects of a request's columns (their slots' handles). */
export function readMetasAhead(slots: readonly SeriesSlot[] | undefined): void {
  if (!slots) return;
  let sum = 0;
  for (let i = 0; i < slots.length; i++) {
    const m = slots[i]!.storeHandle as SeriesMeta | undefined;
    if (m !== undefined && isLive(m)) sum += m.sid;
  }
  readAheadSum = sum;
}

/** The heads (and where their next points go) of a committed group's series. */
export function readHeadsAhead(rowMetas: readonly (readonly SeriesMeta[])[]): void {
  let sum = 0;
  for (const metas of rowMetas) {
    for (let k = 0; k < metas.length; k++) {
      const head = metas[k]!.head;
      if (head !== undefined) sum += head.readAhead();
    }
  }
  readAheadSum = sum;
}
