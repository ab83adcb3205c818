import { describe, expect, it } from "vitest";
import { PERIOD_OPS, parsePeriodOp, periods } from "../../src/metrics/periods.ts";
import { expectApiError } from "../helpers/api-error.ts";

const ts = [10, 20, 30, 40, 50, 60, 70];
const values = [1, 5, 6, 2, 7, 7, 3];

/** Runs of consecutive matching points, by brute force. */
function runs(test: (v: number) => boolean): [number, number][] {
  const out: [number, number][] = [];
  let i = 0;
  while (i < ts.length) {
    if (!test(values[i]!)) {
      i++;
      continue;
    }
    let j = i;
    while (j + 1 < ts.length && test(values[j + 1]!)) j++;
    out.push([ts[i]!, ts[j]!]);
    i = j + 1;
  }
  return out;
}

const tests: Record<string, (v: number, t: number) => boolean> = {
  lt: (v, t) => v < t,
  lte: (v, t) => v <= t,
  eq: (v, t) => v === t,
  neq: (v, t) => v !== t,
  gt: (v, t) => v > t,
  gte: (v, t) => v >= t,
};

describe("periods", () => {
  for (const op of PERIOD_OPS) {
    for (const threshold of [0, 2, 5, 7, 10]) {
      it(`${op} ${threshold}`, () => {
        expect(periods({ ts, values }, threshold, op)).toEqual(runs((v) => tests[op]!(v, threshold)));
      });
    }
  }

  it("a run of one point is [t, t]; a run to the end closes at the last point", () => {
    expect(periods({ ts, values }, 5, "gt")).toEqual([
      [30, 30],
      [50, 60],
    ]);
    expect(periods({ ts, values }, 0, "gt")).toEqual([[10, 70]]);
  });

  it("no points, no periods", () => {
    expect(periods({ ts: [], values: [] }, 1, "eq")).toEqual([]);
  });

  it.each(["ge", "LT", "", "<"])("op %j is a 400", (op) => {
    const msg = "Invalid value for op parameter. Supported values are lt, lte, eq, neq, gt, gte.";
    expectApiError(() => periods({ ts, values }, 1, op), 400, msg);
    expectApiError(() => parsePeriodOp(op), 400, msg);
  });

  it("a missing op is a 400", () => {
    expectApiError(() => parsePeriodOp(undefined), 400, /Invalid value for op parameter/);
  });
});
