export interface MinimizeOptions {
  /** Each coordinate is clamped into [lower, upper] before the objective sees it. */
  lower: number;
  upper: number;
  /** Size of the initial simplex along each axis. */
  step?: number;
  maxIterations?: number;
  /** Stop when the spread of objective values over the simplex falls below this. */
  tolerance?: number;
}

export interface Minimum {
  x: number[];
  value: number;
}

/**
 * Nelder-Mead downhill simplex with box constraints by clamping. Deterministic: the same
 * start gives the same answer. Good enough for the 1 to 3 smoothing parameters.
 */
export function minimize(f: (x: number[]) => number, start: number[], opts: MinimizeOptions): Minimum {
  const { lower, upper } = opts;
  const step = opts.step ?? 0.1;
  const maxIterations = opts.maxIterations ?? 200 * start.length;
  const tolerance = opts.tolerance ?? 1e-10;
  const clamp = (x: number[]) => x.map((v) => Math.min(upper, Math.max(lower, v)));
  const evaluate = (x: number[]): Minimum => {
    const c = clamp(x);
    const v = f(c);
    return { x: c, value: Number.isFinite(v) ? v : Number.POSITIVE_INFINITY };
  };

  const d = start.length;
  const simplex: Minimum[] = [evaluate(start)];
  for (let i = 0; i < d; i++) {
    const x = [...start];
    // Step inwards when the start sits near the upper bound, so the simplex is not flat.
    x[i] = x[i]! + step <= upper ? x[i]! + step : x[i]! - step;
    simplex.push(evaluate(x));
  }

  for (let iter = 0; iter < maxIterations; iter++) {
    simplex.sort((a, b) => a.value - b.value);
    const best = simplex[0]!;
    const worst = simplex[d]!;
    if (Math.abs(worst.value - best.value) <= tolerance * (Math.abs(best.value) + tolerance)) break;

    const centroid = new Array<number>(d).fill(0);
    for (let i = 0; i < d; i++) for (let j = 0; j < d; j++) centroid[j]! += simplex[i]!.x[j]! / d;
    const along = (t: number) => evaluate(centroid.map((c, j) => c + t * (worst.x[j]! - c)));

    const reflected = along(-1);
    if (reflected.value < best.value) {
      const expanded = along(-2);
      simplex[d] = expanded.value < reflected.value ? expanded : reflected;
    } else if (reflected.value < simplex[d - 1]!.value) {
      simplex[d] = reflected;
    } else {
      const contracted = reflected.value < worst.value ? along(-0.5) : along(0.5);
      if (contracted.value < Math.min(worst.value, reflected.value)) {
        simplex[d] = contracted;
      } else {
        for (let i = 1; i <= d; i++) {
          simplex[i] = evaluate(simplex[i]!.x.map((v, j) => best.x[j]! + 0.5 * (v - best.x[j]!)));
        }
      }
    }
  }
  simplex.sort((a, b) => a.value - b.value);
  return simplex[0]!;
}
