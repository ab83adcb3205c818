import { describe, expect, it } from "vitest";
import { psquarePercentile } from "../../src/metrics/psquare.ts";
import { uniform } from "../helpers/series.ts";

/**
 * Reference P² estimator, written from the published algorithm as commons-math applies it:
 * five sorted initial observations, markers at positions 1..5 with desired positions
 * 1, 1+2q, 1+4q, 3+2q, 5 and increments 0, q/2, q, (1+q)/2, 1; a middle marker moves by ±1
 * when its desired position is ≥1 away and the neighbour leaves room; its new height is the
 * quadratic through the three markers (in Neville or Lagrange form), or the straight line
 * towards the neighbour on the side of the move when the quadratic leaves the neighbours' heights.
 */
class ReferenceP2 {
  readonly q: number;
  private readonly seen: number[] = [];
  private h: number[] = [];
  private pos: number[] = [];
  private want: number[] = [];
  private inc: number[] = [];
  parabolic = 0;
  linear = 0;
  /** Moves whose Neville evaluation started from the lower neighbour rather than the marker. */
  fromLower = 0;

  constructor(
    percent: number,
    private readonly form: "neville" | "lagrange",
  ) {
    this.q = percent / 100;
  }

  add(x: number) {
    if (this.h.length === 0) {
      if (this.seen.length < 5) {
        this.seen.push(x);
        return;
      }
      const s = [...this.seen].sort((a, b) => a - b);
      const q = this.q;
      this.h = [Number.NaN, ...s];
      this.pos = [Number.NaN, 1, 2, 3, 4, 5];
      this.want = [Number.NaN, 1, 1 + 2 * q, 1 + 4 * q, 3 + 2 * q, 5];
      this.inc = [Number.NaN, 0, q / 2, q, (1 + q) / 2, 1];
    }
    const { h, pos, want, inc } = this;
    let k: number;
    if (x < h[1]!) {
      h[1] = x;
      k = 1;
    } else if (x > h[5]!) {
      h[5] = x;
      k = 4;
    } else {
      k = 1;
      while (k < 4 && x >= h[k + 1]!) k++;
    }
    for (let i = k + 1; i <= 5; i++) pos[i]! += 1;
    for (let i = 1; i <= 5; i++) want[i]! += inc[i]!;
    for (let i = 2; i <= 4; i++) {
      const gap = want[i]! - pos[i]!;
      const up = gap >= 1 && pos[i + 1]! - pos[i]! > 1;
      const down = gap <= -1 && pos[i - 1]! - pos[i]! < -1;
      if (!up && !down) continue;
      const s = up ? 1 : -1;
      const z = pos[i]! + s;
      const xs = [pos[i - 1]!, pos[i]!, pos[i + 1]!];
      const ys = [h[i - 1]!, h[i]!, h[i + 1]!];
      let y = this.form === "neville" ? neville(xs, ys, z, () => this.fromLower++) : lagrange(xs, ys, z);
      if (y <= ys[0]! || y >= ys[2]!) {
        // Straight line through the marker and the neighbour on the side of the move,
        // evaluated from the left point of the two.
        const [a, b] = s > 0 ? [1, 2] : [0, 1];
        y = ys[a]! + ((ys[b]! - ys[a]!) / (xs[b]! - xs[a]!)) * (z - xs[a]!);
        this.linear++;
      } else {
        this.parabolic++;
      }
      h[i] = y;
      pos[i] = z;
    }
  }

  result(): number {
    if (this.h.length === 0) {
      const s = [...this.seen].sort((a, b) => a - b);
      if (s.length === 0) return Number.NaN;
      if (this.q === 1) return s[s.length - 1]!;
      return s[Math.floor(this.q * (s.length - 1))]!;
    }
    if (this.q === 1) return this.h[5]!;
    if (this.q === 0) return this.h[1]!;
    return this.h[3]!;
  }
}

/**
 * Neville's scheme as in Numerical Recipes (polint): start from the tabulated value nearest to
 * z, then walk the tableau of corrections C and D, taking the C path while the current index is
 * in the upper half. commons-math evaluates its quadratic this way, so this gives the same bits.
 */
function neville(x: readonly number[], y: readonly number[], z: number, startsAtFirst: () => void): number {
  const n = x.length;
  const C = [...y];
  const D = [...y];
  let ns = 0;
  for (let i = 1; i < n; i++) if (Math.abs(z - x[i]!) < Math.abs(z - x[ns]!)) ns = i;
  if (ns === 0) startsAtFirst();
  let result = y[ns]!;
  for (let m = 1; m < n; m++) {
    for (let i = 0; i < n - m; i++) {
      const w = (C[i + 1]! - D[i]!) / (x[i]! - x[i + m]!);
      C[i] = (x[i]! - z) * w;
      D[i] = (x[i + m]! - z) * w;
    }
    result += 2 * ns < n - m + 1 ? C[ns]! : D[--ns]!;
  }
  return result;
}

/** The same quadratic in Lagrange form: mathematically equal, different rounding. */
function lagrange(x: readonly number[], y: readonly number[], z: number): number {
  let sum = 0;
  for (let a = 0; a < x.length; a++) {
    let term = y[a]!;
    for (let b = 0; b < x.length; b++) if (b !== a) term *= (z - x[b]!) / (x[a]! - x[b]!);
    sum += term;
  }
  return sum;
}

/** Smooth, heavy-tailed or heavily tied values, by seed, so that every branch runs. */
function sample(seed: number): number[] {
  const next = uniform(seed);
  const n = 6 + Math.floor(next() * 3000);
  return Array.from({ length: n }, (_, i) =>
    seed % 3 === 0 ? Math.floor(next() * 5) : seed % 3 === 1 ? next() ** 4 * 1e4 : Math.sin(i / 10) * 50 + next(),
  );
}

function estimate(p: number, xs: readonly number[]): number {
  return psquarePercentile(xs, p);
}

function reference(p: number, xs: readonly number[], form: "neville" | "lagrange" = "neville"): ReferenceP2 {
  const r = new ReferenceP2(p, form);
  for (const x of xs) r.add(x);
  return r;
}

describe("PSquare with at most five observations", () => {
  it("is the element at floor(q·(n−1)) of the sorted values", () => {
    expect(estimate(50, [172.6, 198.6])).toBe(172.6);
    expect(estimate(50, [198.6, 172.6])).toBe(172.6);
    expect(estimate(50, [0, 200])).toBe(0);
    expect(estimate(50, [3, 1, 2])).toBe(2);
    expect(estimate(90, [5, 1, 4, 2, 3])).toBe(4); // floor(0.9·4) = 3 → 4
    expect(estimate(99.9, [10, 20])).toBe(10);
  });

  it("q = 1 and q = 0 give the maximum and minimum", () => {
    expect(estimate(100, [3, 9, 1])).toBe(9);
    expect(estimate(0, [3, 9, 1])).toBe(1);
  });

  it("is NaN without observations, the value itself with one", () => {
    expect(estimate(50, [])).toBeNaN();
    expect(estimate(50, [42])).toBe(42);
  });

  it("matches the rule for every small sample and quantile", () => {
    const next = uniform(7);
    for (let n = 1; n <= 5; n++) {
      for (const p of [1, 25, 50, 75, 90, 99]) {
        const xs = Array.from({ length: n }, () => Math.round(next() * 1000) / 10);
        const sorted = [...xs].sort((a, b) => a - b);
        expect(estimate(p, xs)).toBe(sorted[Math.floor((p / 100) * (n - 1))]);
      }
    }
  });
});

describe("PSquare from the sixth observation", () => {
  it("hand-checked: 1..8 ascending gives a median of 4", () => {
    // After 6 and 7 only marker 4 moves (to height 5); the 8th moves marker 3 to position 4,
    // where the quadratic through (2,2), (3,3), (5,5) gives 4.
    const xs = [1, 2, 3, 4, 5, 6, 7, 8];
    expect([6, 7, 8].map((n) => psquarePercentile(xs, 50, 0, n))).toEqual([3, 3, 4]);
  });

  it("tracks the maximum and minimum for q = 1 and q = 0", () => {
    const xs = [5, 3, 8, 1, 9, 2, 14, -4, 7];
    expect(estimate(100, xs)).toBe(Math.max(...xs));
    expect(estimate(0, xs)).toBe(Math.min(...xs));
  });

  it("gives exactly the reference's results (Neville form) on random data", () => {
    let parabolic = 0;
    let linear = 0;
    let fromLower = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const xs = sample(seed);
      for (const p of [50, 90, 99.9, 5, 25]) {
        const ref = reference(p, xs);
        parabolic += ref.parabolic;
        linear += ref.linear;
        fromLower += ref.fromLower;
        expect(estimate(p, xs)).toBe(ref.result());
      }
    }
    // Both interpolation branches ran, and both starting points of Neville's scheme.
    expect(parabolic).toBeGreaterThan(0);
    expect(linear).toBeGreaterThan(0);
    expect(fromLower).toBeGreaterThan(0);
  });

  it("is close to the quadratic in Lagrange form on untied data", () => {
    // Ties can put the quadratic exactly on a neighbour's height, where rounding decides
    // between the two branches; untied data keeps clear of that edge.
    for (let seed = 1; seed <= 40; seed++) {
      if (seed % 3 === 0) continue;
      const xs = sample(seed);
      for (const p of [50, 90, 99.9, 5]) {
        expect(estimate(p, xs)).toBeCloseTo(reference(p, xs, "lagrange").result(), 6);
      }
    }
  });

  it("agrees with the reference after every single observation", () => {
    const next = uniform(99);
    const xs = Array.from({ length: 400 }, () => Math.floor(next() * 20));
    const ref = new ReferenceP2(75, "neville");
    xs.forEach((x, i) => {
      ref.add(x);
      expect(psquarePercentile(xs, 75, 0, i + 1)).toBe(ref.result());
    });
  });

  it("estimates over a sub-range, in either feed order", () => {
    const xs = sample(4);
    const from = 17;
    const to = xs.length - 23;
    const part = xs.slice(from, to);
    expect(psquarePercentile(xs, 90, from, to, "asc")).toBe(reference(90, part).result());
    expect(psquarePercentile(xs, 90, from, to, "desc")).toBe(reference(90, [...part].reverse()).result());
    expect(psquarePercentile(Float64Array.from(xs), 90, from, to, "desc")).toBe(psquarePercentile(xs, 90, from, to, "desc"));
    expect(psquarePercentile(xs, 50, 5, 5)).toBeNaN();
  });

  it("depends on the insertion order", () => {
    const next = uniform(3);
    const xs = Array.from({ length: 200 }, () => next() ** 3 * 100);
    const forward = estimate(50, xs);
    const backward = estimate(50, [...xs].reverse());
    expect(forward).toBe(reference(50, xs).result());
    expect(backward).toBe(reference(50, [...xs].reverse()).result());
    expect(psquarePercentile(xs, 50, 0, xs.length, "desc")).toBe(backward);
    expect(forward).not.toBe(backward);
  });
});
