import type { IndexEntry } from "./data-index.ts";

/**
 * Orders the items of one batch that share a (tenant, source, dataId) for evaluation, one per
 * round, oldest first (research §2.5). An item closer than `minInterval` to the previous kept
 * one is dropped, and so is a duplicate of it (same time, same identity).
 * Returns the kept items and how many were dropped.
 */
export function orderForRounds<T>(
  items: T[],
  time: (item: T) => number,
  duplicate: (a: T, b: T) => boolean,
  minInterval: number,
): { kept: T[]; dropped: number } {
  // stable: items with equal times keep arrival order, so the first of duplicates wins
  const sorted = items.map((item, i) => ({ item, i, t: time(item) })).sort((a, b) => a.t - b.t || a.i - b.i);
  const kept: T[] = [];
  let lastT = 0;
  let dropped = 0;
  for (const s of sorted) {
    if (kept.length > 0) {
      const dt = s.t - lastT;
      if (dt < minInterval || (dt === 0 && duplicate(kept[kept.length - 1]!, s.item))) {
        dropped++;
        continue;
      }
    }
    kept.push(s.item);
    lastT = s.t;
  }
  return { kept, dropped };
}

/**
 * Groups one batch by index entry (one per key that something reads), in arrival order within
 * each, then orders each key's items for evaluation rounds. `rounds` is the most items any key
 * keeps; an entry's items are `first` when `more` is null, else `more[0..]`.
 */
export function collectRounds<T>(
  batch: readonly T[],
  seq: number,
  entryOf: (item: T) => IndexEntry | undefined,
  reads: (e: IndexEntry) => boolean,
  time: (item: T) => number,
  duplicate: (a: T, b: T) => boolean,
  minInterval: number,
): { entries: IndexEntry[]; rounds: number; dropped: number } {
  const entries: IndexEntry[] = [];
  for (let i = 0; i < batch.length; i++) {
    const item = batch[i]!;
    const e = entryOf(item);
    if (e === undefined || !reads(e)) continue;
    if (e.batchSeq !== seq) {
      e.batchSeq = seq;
      e.first = item;
      e.more = null;
      entries.push(e);
    } else if (e.more === null) e.more = [item];
    else e.more.push(item);
  }
  let rounds = 1;
  let dropped = 0;
  for (const e of entries) {
    if (e.more === null) continue;
    const ordered = orderForRounds([e.first as T, ...(e.more as T[])], time, duplicate, minInterval);
    e.more = ordered.kept;
    dropped += ordered.dropped;
    if (ordered.kept.length > rounds) rounds = ordered.kept.length;
  }
  return { entries, rounds, dropped };
}
