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
