import { describe, expect, it } from "vitest";
import { nextStamp, startHostSource } from "../../../agent/inputs/host/host-source.ts";
import { percent } from "../../../agent/inputs/host/series.ts";
import { createLogger } from "../../../src/log/logger.ts";

describe("host sampling schedule", () => {
  it("stamps samples with grid times, whatever the timer's lateness, and skips grid times missed", () => {
    expect(nextStamp(10_000, undefined, 1_234_567)).toBe(1_230_000);
    expect(nextStamp(10_000, 1_230_000, 1_240_011)).toBe(1_240_000); // 11 ms late
    expect(nextStamp(10_000, 1_240_000, 1_249_999)).toBe(1_250_000); // 1 ms early
    expect(nextStamp(10_000, 1_250_000, 1_287_000)).toBe(1_280_000); // 27 s late: no catch-up burst
  });

  it("samples on the grid with a real timer", async () => {
    const stamps: number[] = [];
    const source = startHostSource({
      reader: {
        sample: (t) => {
          stamps.push(t);
          return { timestamp: t, writes: [], series: [] };
        },
      },
      intervalMs: 100,
      accept: async () => {},
      log: createLogger("error"),
    });
    await new Promise((r) => setTimeout(r, 450));
    source.stop();
    expect(stamps.length).toBeGreaterThanOrEqual(4);
    for (let i = 0; i < stamps.length; i++) {
      expect(stamps[i]! % 100).toBe(0);
      if (i > 0) expect(stamps[i]! - stamps[i - 1]!).toBe(100);
    }
  });

  it("computes percentages to 0.01, as short decimals", () => {
    expect(percent(1, 3)).toBe(33.33);
    expect(percent(2, 3)).toBe(66.67);
    expect(percent(0, 5)).toBe(0);
    expect(percent(5, 5)).toBe(100);
    expect(Math.round(percent(123_456, 987_654) * 100) / 100).toBe(percent(123_456, 987_654));
  });
});
