import { NELSON_RULES, type NelsonRule } from "./model.ts";

/**
 * Nelson rules over a stream of samples (research §2.6). The mean and the (sample) standard
 * deviation are learned from the first `sampleSize` samples and then frozen; rules that need
 * them stay false until then. Each `add` reports the rules the newest sample violates.
 */

const WINDOW = 15; // the longest run any rule needs (rule 7)

export class NelsonState {
  private n = 0;
  private runningMean = 0;
  private m2 = 0;
  private frozen = false;
  mean = Number.NaN;
  sigma = Number.NaN;

  /** Violated rules of the latest sample, as a bit set (bit i = Rule(i+1)). */
  violations = 0;

  // rule 2: signed run length on one side of the mean
  private side = 0;
  // rule 3: signed run of increases/decreases
  private prev3: number | undefined;
  private trend = 0;
  // rule 4: alternations
  private prev4: number | undefined;
  private dir4 = 0;
  private alternations = 0;
  // rules 5 and 6: sliding windows of -1/0/+1 marks
  private w5: number[] = [];
  private w6: number[] = [];
  // rule 7 and 8 runs
  private within = 0;
  private outside = 0;

  // newest-first window of samples, for evaluation records
  readonly recentValues: number[] = [];
  readonly recentTimes: number[] = [];

  constructor(readonly sampleSize: number) {}

  get hasBaseline(): boolean {
    return this.frozen;
  }

  add(x: number, timestamp: number): number {
    this.recentValues.unshift(x);
    this.recentTimes.unshift(timestamp);
    if (this.recentValues.length > WINDOW) {
      this.recentValues.pop();
      this.recentTimes.pop();
    }
    if (!this.frozen) this.learn(x);

    let v = 0;
    if (this.rule1(x)) v |= 1;
    if (this.rule2(x)) v |= 2;
    if (this.rule3(x)) v |= 4;
    if (this.rule4(x)) v |= 8;
    if (this.rule5(x)) v |= 16;
    if (this.rule6(x)) v |= 32;
    if (this.rule7(x)) v |= 64;
    if (this.rule8(x)) v |= 128;
    this.violations = v;
    return v;
  }

  private learn(x: number): void {
    // Welford's update: stable for long baselines
    this.n++;
    const d = x - this.runningMean;
    this.runningMean += d / this.n;
    this.m2 += d * (x - this.runningMean);
    if (this.n === this.sampleSize) {
      this.frozen = true;
      this.mean = this.runningMean;
      this.sigma = this.n > 1 ? Math.sqrt(this.m2 / (this.n - 1)) : 0;
    }
  }

  private rule1(x: number): boolean {
    return this.frozen && Math.abs(x - this.mean) > 3 * this.sigma;
  }

  private rule2(x: number): boolean {
    if (!this.frozen) return false;
    // a point on the mean counts as below it
    if (x > this.mean) this.side = this.side > 0 ? this.side + 1 : 1;
    else this.side = this.side < 0 ? this.side - 1 : -1;
    return Math.abs(this.side) >= 9;
  }

  private rule3(x: number): boolean {
    const p = this.prev3;
    this.prev3 = x;
    if (p === undefined) return false;
    if (x > p) this.trend = this.trend > 0 ? this.trend + 1 : 1;
    else if (x < p) this.trend = this.trend < 0 ? this.trend - 1 : -1;
    else this.trend = 0;
    return Math.abs(this.trend) >= 6;
  }

  private rule4(x: number): boolean {
    const p = this.prev4;
    this.prev4 = x;
    if (p === undefined || x === p) {
      this.dir4 = 0;
      this.alternations = 0;
      return false;
    }
    const dir = x > p ? 1 : -1;
    this.alternations = dir === this.dir4 ? 0 : this.alternations + 1;
    this.dir4 = dir;
    return this.alternations >= 14;
  }

  private mark(x: number, k: number): number {
    if (Math.abs(x - this.mean) <= k * this.sigma) return 0;
    return x > this.mean ? 1 : -1;
  }

  private static countIn(w: number[], size: number, mark: number, need: number): boolean {
    w.push(mark);
    if (w.length > size) w.shift();
    let above = 0;
    let below = 0;
    for (const m of w) {
      if (m > 0) above++;
      else if (m < 0) below++;
    }
    return above >= need || below >= need;
  }

  private rule5(x: number): boolean {
    return this.frozen && NelsonState.countIn(this.w5, 3, this.mark(x, 2), 2);
  }

  private rule6(x: number): boolean {
    return this.frozen && NelsonState.countIn(this.w6, 5, this.mark(x, 1), 4);
  }

  private rule7(x: number): boolean {
    if (!this.frozen) return false;
    // a point exactly on the mean resets: a flat line is not "hugging the mean"
    if (x === this.mean) {
      this.within = 0;
      return false;
    }
    this.within = Math.abs(x - this.mean) <= this.sigma ? this.within + 1 : 0;
    return this.within >= 15;
  }

  private rule8(x: number): boolean {
    if (!this.frozen) return false;
    this.outside = Math.abs(x - this.mean) > this.sigma ? this.outside + 1 : 0;
    return this.outside >= 8;
  }
}

/** The bit set of a list of rules. */
export function nelsonRuleMask(rules: readonly NelsonRule[]): number {
  let m = 0;
  for (const r of rules) m |= 1 << NELSON_RULES.indexOf(r);
  return m;
}

/** The rules of a bit set, in rule order. */
export function nelsonRulesOf(mask: number): NelsonRule[] {
  return NELSON_RULES.filter((_, i) => (mask & (1 << i)) !== 0);
}
