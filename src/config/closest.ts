/** Edit distance (insertions, deletions, substitutions, adjacent swaps) between two short names. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The candidate closest to `name`, phrased for an error message: "did you mean X?" when it is
 * a likely typo, otherwise "the closest valid name is X" so the reader still has a lead.
 */
export function suggestion(name: string, candidates: Iterable<string>, quote: (s: string) => string = (s) => `"${s}"`): string {
  let best: string | undefined;
  let bestD = Number.POSITIVE_INFINITY;
  const lower = name.toLowerCase();
  for (const c of candidates) {
    const dist = editDistance(lower, c.toLowerCase());
    if (dist < bestD) {
      best = c;
      bestD = dist;
    }
  }
  if (best === undefined) return "";
  return bestD <= Math.max(2, Math.floor(name.length / 3)) ? `did you mean ${quote(best)}?` : `the closest valid name is ${quote(best)}`;
}
