import { describe, expect, it } from "vitest";
import { rates } from "../../src/metrics/rates.ts";

const MIN = 60_000;
const T0 = 1_700_000_000_000;

describe("rates", () => {
  // CountersITest findRateWhenThereAreResets: values 1,2,3,1,2,3,1,2,3 at minutes
  // 1, 1.5, 3.5, 5, 7, 7.5, 8, 8.5, 9.
  const minutes = [1, 1.5, 3.5, 5, 7, 7.5, 8, 8.5, 9];
  const resets = { ts: minutes.map((m) => T0 + m * MIN), values: [1, 2, 3, 1, 2, 3, 1, 2, 3] };

  /** Per-minute rate of each consecutive pair, by the rule, optionally skipping decreases. */
  function expected(s: { ts: number[]; values: number[] }, dropDecreases: boolean) {
    const out: [number, number][] = [];
    for (let i = 1; i < s.ts.length; i++) {
      const dv = s.values[i]! - s.values[i - 1]!;
      if (dropDecreases && dv < 0) continue;
      out.push([s.ts[i]!, (dv / (s.ts[i]! - s.ts[i - 1]!)) * MIN]);
    }
    return out;
  }

  it("counter resets drop the pair across the reset (research §1.7 example)", () => {
    const r = rates(resets, { kind: "counter" });
    expect([...r.ts].map((t) => (t - T0) / MIN)).toEqual([1.5, 3.5, 7, 7.5, 8.5, 9]);
    expect([...r.values]).toEqual([2, 0.5, 0.5, 2, 2, 2]);
    const want = expected(resets, true);
    want.forEach(([t, v], i) => {
      expect(r.ts[i]).toBe(t);
      expect(r.values[i]).toBeCloseTo(v, 12);
    });
  });

  it("gauge rates keep negative values", () => {
    const r = rates(resets, { kind: "gauge" });
    const want = expected(resets, false);
    expect(r.ts).toHaveLength(resets.ts.length - 1);
    want.forEach(([t, v], i) => {
      expect(r.ts[i]).toBe(t);
      expect(r.values[i]).toBeCloseTo(v, 12);
    });
    expect(Math.min(...r.values)).toBeLessThan(0);
  });

  it("descending order returns the same rates newest first", () => {
    const asc = rates(resets, { kind: "counter" });
    const desc = rates(resets, { kind: "counter", order: "desc" });
    expect([...desc.ts]).toEqual([...asc.ts].reverse());
    expect([...desc.values]).toEqual([...asc.values].reverse());
  });

  it("limit applies after pairing and dropping, in the requested order", () => {
    const all = rates(resets, { kind: "counter" });
    const first3 = rates(resets, { kind: "counter", limit: 3 });
    expect([...first3.ts]).toEqual([...all.ts].slice(0, 3));
    const last2 = rates(resets, { kind: "counter", order: "desc", limit: 2 });
    expect([...last2.ts]).toEqual([...all.ts].reverse().slice(0, 2));
    expect(rates(resets, { kind: "counter", limit: 0 }).ts).toHaveLength(all.ts.length);
    expect(rates(resets, { kind: "counter", limit: -1 }).ts).toHaveLength(all.ts.length);
    expect(rates(resets, { kind: "counter", limit: 100 }).ts).toHaveLength(all.ts.length);
  });

  it("fewer than two points give no rate", () => {
    expect(rates({ ts: [T0], values: [5] }, { kind: "counter" }).ts).toHaveLength(0);
    expect(rates({ ts: [], values: [] }, { kind: "gauge", order: "desc" }).ts).toHaveLength(0);
  });

  it("an unchanged counter has rate 0", () => {
    expect([...rates({ ts: [T0, T0 + MIN], values: [7, 7] }, { kind: "counter" }).values]).toEqual([0]);
  });
});
