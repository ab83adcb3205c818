import { describe, expect, it } from "vitest";
import { minimize } from "../../src/forecast/nelder-mead.ts";

describe("Nelder-Mead", () => {
  it("finds the minimum of a smooth bowl", () => {
    const f = (x: number[]) => (x[0]! - 0.3) ** 2 + 2 * (x[1]! - 0.7) ** 2 + 0.5 * (x[0]! - 0.3) * (x[1]! - 0.7);
    const m = minimize(f, [0.5, 0.5], { lower: 0, upper: 1 });
    expect(m.x[0]).toBeCloseTo(0.3, 4);
    expect(m.x[1]).toBeCloseTo(0.7, 4);
  });

  it("stops at the bound when the minimum lies outside the box", () => {
    const m = minimize((x) => (x[0]! - 2) ** 2, [0.5], { lower: 0.1, upper: 0.9 });
    expect(m.x[0]).toBeCloseTo(0.9, 6);
    expect(m.value).toBeCloseTo((0.9 - 2) ** 2, 6);
  });
});
