/**
 * Per-second rate of a growing count over roughly the last `windowMs`, from samples taken
 * whenever it is read (scrapes, self-metric ticks).
 */
export function rateOf(read: () => number, windowMs: number, now: () => number = Date.now): () => number {
  const samples: { t: number; v: number }[] = [];
  return () => {
    const t = now();
    const v = read();
    samples.push({ t, v });
    // Keep one sample at or beyond the window so the rate always spans about windowMs.
    while (samples.length > 2 && t - samples[1]!.t >= windowMs) samples.shift();
    const first = samples[0]!;
    return t > first.t ? ((v - first.v) * 1000) / (t - first.t) : 0;
  };
}
