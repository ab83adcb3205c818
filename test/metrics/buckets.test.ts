import { describe, expect, it } from "vitest";
import { bucketConfig, bucketsFromCount, bucketsFromStep } from "../../src/metrics/buckets.ts";
import { expectApiError } from "../helpers/api-error.ts";

const T0 = 1_700_000_000_000;

/** The construction rules of research §1.5, restated with BigInt arithmetic. */
function stepForCount(span: number, count: number): number {
  const s = BigInt(span);
  const n = BigInt(count);
  const q = s / n;
  const r = s % n;
  return Number(r !== 0n && (n - 1n) * (q + 1n) < s ? q + 1n : q);
}
function countForStep(span: number, step: number): number {
  if (step > span) return 1;
  const s = BigInt(span);
  const d = BigInt(step);
  return Number(s % d === 0n ? s / d : s / d + 1n);
}

describe("bucketsFromCount", () => {
  it("gives exactly N buckets anchored at start", () => {
    for (const [span, count] of [
      [100, 3],
      [100, 4],
      [10, 4],
      [10, 6],
      [3_600_000, 60],
      [8 * 3_600_000, 7],
      [604_800_000, 60],
      [1, 1],
    ] as const) {
      const b = bucketsFromCount(T0, T0 + span, count);
      expect(b).toEqual({ start: T0, step: stepForCount(span, count), count });
    }
  });

  it("rounds the step up when that keeps N buckets, so the last may end past end", () => {
    const b = bucketsFromCount(T0, T0 + 100, 3);
    expect(b.step).toBe(34);
    expect(b.start + b.count * b.step).toBeGreaterThan(T0 + 100);
  });

  it("keeps the quotient when rounding up would leave the last bucket past end", () => {
    // span 10, 6 buckets: a step of 2 would start bucket 6 at +10, so the step stays 1.
    expect(bucketsFromCount(T0, T0 + 10, 6).step).toBe(1);
  });

  it("more buckets than milliseconds is a 400", () => {
    expectApiError(() => bucketsFromCount(T0, T0 + 100, 200), 400, "Computed step is equal to zero");
    expectApiError(() => bucketsFromCount(T0, T0 + 8 * 3_600_000, 2 ** 31 - 1), 400, "Computed step is equal to zero");
  });

  it.each([0, -2])("count %d is a 400", (count) => {
    expectApiError(() => bucketsFromCount(T0, T0 + 100, count), 400, `count is not positive: ${count}`);
  });

  it("a start that is not positive is a 400", () => {
    expectApiError(() => bucketsFromCount(0, 100, 5), 400, "start is not positive");
    expectApiError(() => bucketsFromCount(-100, 100, 5), 400, "start is not positive");
  });
});

describe("bucketsFromStep", () => {
  it("covers the range with ceil(span/step) buckets", () => {
    for (const [span, step] of [
      [100, 30],
      [100, 25],
      [100, 100],
      [3_600_000, 60_000],
      [604_800_000, 10_080_000],
    ] as const) {
      expect(bucketsFromStep(T0, T0 + span, step)).toEqual({ start: T0, step, count: countForStep(span, step) });
    }
  });

  it("a step longer than the range gives one bucket of that step", () => {
    expect(bucketsFromStep(T0, T0 + 100, 250)).toEqual({ start: T0, step: 250, count: 1 });
  });

  it("a zero step is a 400", () => {
    expectApiError(() => bucketsFromStep(T0, T0 + 100, 0), 400, "step is not positive: 0");
  });

  it("more than 2^31−1 buckets is a 400", () => {
    const span = 2 ** 31;
    expectApiError(() => bucketsFromStep(1, 1 + span, 1), 400, `Computed number of buckets is too big: ${span}`);
  });

  it("a start that is not positive is a 400, even for one bucket", () => {
    expectApiError(() => bucketsFromStep(0, 100, 500), 400, "start is not positive");
  });
});

describe("bucketConfig", () => {
  const range = { start: T0, end: T0 + 3_600_000 };

  it("neither parameter: undefined, the caller decides", () => {
    expect(bucketConfig({}, range)).toBeUndefined();
  });

  it("both parameters are a 400", () => {
    expectApiError(
      () => bucketConfig({ buckets: 6, bucketDuration: 60_000 }, range),
      400,
      "Both buckets and bucketDuration parameters are specified",
    );
  });

  it("builds by count or by duration", () => {
    expect(bucketConfig({ buckets: 6 }, range)).toEqual(bucketsFromCount(range.start, range.end, 6));
    expect(bucketConfig({ bucketDuration: 600_000 }, range)).toEqual(bucketsFromStep(range.start, range.end, 600_000));
  });

  it("passes construction errors on", () => {
    expectApiError(() => bucketConfig({ buckets: 2 ** 31 - 1 }, range), 400, "Computed step is equal to zero");
    expectApiError(() => bucketConfig({ buckets: 5 }, { start: 0, end: 1000 }), 400, "start is not positive");
  });
});
