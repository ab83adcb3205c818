/**
 * Filters a long list without holding the event loop: after each slice of `sliceMs` the loop
 * gets a turn, so a costly filter (a complex regular expression over many metrics) slows only
 * its own request, never ingest or other tenants.
 */
export async function filterYielding<T>(items: readonly T[], keep: (item: T) => boolean, sliceMs = 10): Promise<T[]> {
  const out: T[] = [];
  let sliceEnd = performance.now() + sliceMs;
  for (let i = 0; i < items.length; i++) {
    if (keep(items[i]!)) out.push(items[i]!);
    if ((i & 63) === 63 && performance.now() > sliceEnd) {
      await new Promise<void>((r) => setImmediate(r));
      sliceEnd = performance.now() + sliceMs;
    }
  }
  return out;
}
