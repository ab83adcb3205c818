import { describe, expect, it } from "vitest";
import { distinct } from "../../src/metrics/distinct.ts";
import { AVAILABILITY_CODE } from "../../src/metrics/model.ts";

const { up: UP, down: DOWN } = AVAILABILITY_CODE;

/** Keeps a point when it differs from the previous one in traversal order. */
function byRule<V>(ts: number[], values: V[]) {
  const keep = ts.map((_, i) => i === 0 || values[i] !== values[i - 1]);
  return { ts: ts.filter((_, i) => keep[i]), values: values.filter((_, i) => keep[i]) };
}

describe("distinct", () => {
  const ts = [1, 2, 3, 4, 5, 6, 7];
  const avail = [UP, UP, DOWN, DOWN, DOWN, UP, UP];
  const strings = ["a", "a", "b", "a", "a", "a", "c"];

  it("keeps the first point of each run, ascending", () => {
    expect(distinct({ ts, values: avail })).toEqual(byRule(ts, avail));
    expect(distinct({ ts, values: avail }).ts).toEqual([1, 3, 6]);
    expect(distinct({ ts, values: strings })).toEqual(byRule(ts, strings));
  });

  it("descending traversal keeps the first point of each run in that order (the newest)", () => {
    const rts = [...ts].reverse();
    expect(distinct({ ts, values: avail }, { order: "desc" })).toEqual(byRule(rts, [...avail].reverse()));
    expect(distinct({ ts, values: avail }, { order: "desc" }).ts).toEqual([7, 5, 2]);
  });

  it("limit applies after dropping repeats", () => {
    expect(distinct({ ts, values: strings }, { limit: 2 })).toEqual({ ts: [1, 3], values: ["a", "b"] });
    expect(distinct({ ts, values: strings }, { limit: 0 }).ts).toEqual(byRule(ts, strings).ts);
  });

  it("handles empty input", () => {
    expect(distinct({ ts: [], values: [] })).toEqual({ ts: [], values: [] });
  });
});
