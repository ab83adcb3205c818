/** Seeded synthetic series for forecasting tests and benches: same seed, same numbers. */

/** mulberry32: a small seeded uniform generator on [0, 1). */
export function uniform(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Standard normal draws (Box-Muller). */
export function gaussian(seed: number): () => number {
  const u = uniform(seed);
  return () => Math.sqrt(-2 * Math.log(1 - u())) * Math.cos(2 * Math.PI * u());
}

export function linearTrend(n: number, seed: number, slope = 0.5, noise = 2): number[] {
  const g = gaussian(seed);
  return Array.from({ length: n }, (_, t) => 10 + slope * t + noise * g());
}

export function seasonal(n: number, seed: number, period = 24, amplitude = 10, noise = 1): number[] {
  const g = gaussian(seed);
  return Array.from({ length: n }, (_, t) => 50 + 0.05 * t + amplitude * Math.sin((2 * Math.PI * t) / period) + noise * g());
}

export function randomWalk(n: number, seed: number): number[] {
  const g = gaussian(seed);
  let y = 100;
  return Array.from({ length: n }, () => (y += g()));
}

export function whiteNoise(n: number, seed: number, level = 10): number[] {
  const g = gaussian(seed);
  return Array.from({ length: n }, () => level + g());
}
