/** Compensated (Neumaier) summation, as Prometheus sums, so results match its rounding. */

export interface KahanState {
  sum: number;
  c: number;
}

/** Adds `inc` to the running sum `s` in place. */
export function kahanAdd(s: KahanState, inc: number): void {
  const t = s.sum + inc;
  if (!Number.isFinite(t) && !Number.isNaN(t)) s.c = 0;
  else if (Math.abs(s.sum) >= Math.abs(inc)) s.c += s.sum - t + inc;
  else s.c += inc - t + s.sum;
  s.sum = t;
}

/**
 * Mean of values fed one by one: a compensated sum while it stays finite, an incremental mean
 * once the sum would overflow (Prometheus' avg and avg_over_time).
 */
export class MeanAccumulator {
  private sum = 0;
  private c = 0;
  private mean = 0;
  private count = 0;
  private incremental = false;

  add(v: number): void {
    this.count++;
    if (this.count === 1) {
      this.sum = v;
      return;
    }
    if (!this.incremental) {
      const s = { sum: this.sum, c: this.c };
      kahanAdd(s, v);
      if (Number.isNaN(s.sum) || Number.isFinite(s.sum)) {
        this.sum = s.sum;
        this.c = s.c;
        return;
      }
      this.incremental = true;
      this.mean = this.sum / (this.count - 1);
      this.c /= this.count - 1;
    }
    const q = (this.count - 1) / this.count;
    const s = { sum: q * this.mean, c: q * this.c };
    kahanAdd(s, v / this.count);
    this.mean = s.sum;
    this.c = s.c;
  }

  value(): number {
    if (this.incremental) return this.mean + this.c;
    return this.sum / this.count + this.c / this.count;
  }
}

/** Population variance by Welford's method with compensated sums (stddev, stdvar). */
export class VarianceAccumulator {
  private count = 0;
  private mean: KahanState = { sum: 0, c: 0 };
  private aux: KahanState = { sum: 0, c: 0 };

  add(v: number): void {
    this.count++;
    const delta = v - (this.mean.sum + this.mean.c);
    kahanAdd(this.mean, delta / this.count);
    kahanAdd(this.aux, delta * (v - (this.mean.sum + this.mean.c)));
  }

  variance(): number {
    return (this.aux.sum + this.aux.c) / this.count;
  }
}

/** Prometheus' quantile of a sample list (sorts `values` in place, NaN first). */
export function quantile(q: number, values: number[]): number {
  if (values.length === 0 || Number.isNaN(q)) return Number.NaN;
  if (q < 0) return Number.NEGATIVE_INFINITY;
  if (q > 1) return Number.POSITIVE_INFINITY;
  values.sort((a, b) => (Number.isNaN(a) ? (Number.isNaN(b) ? 0 : -1) : Number.isNaN(b) ? 1 : a - b));
  const n = values.length;
  const rank = q * (n - 1);
  const lower = Math.max(0, Math.floor(rank));
  const upper = Math.min(n - 1, lower + 1);
  const weight = rank - Math.floor(rank);
  return values[lower]! * (1 - weight) + values[upper]! * weight;
}
