import { describe, expect, it } from "vitest";
import { filterYielding } from "../../src/http/yielding.ts";

describe("filterYielding", () => {
  it("keeps what the predicate keeps, in order", async () => {
    expect(await filterYielding([1, 2, 3, 4, 5, 6], (n) => n % 2 === 0)).toEqual([2, 4, 6]);
  });

  it("lets other work run while a costly filter goes on", async () => {
    const ran: string[] = [];
    setTimeout(() => ran.push("timer"), 0);
    const slow = (n: number) => {
      const until = performance.now() + 1;
      while (performance.now() < until) {}
      ran.push(`item ${n}`);
      return true;
    };
    const kept = await filterYielding(Array.from({ length: 200 }, (_, i) => i), slow, 5);
    expect(kept).toHaveLength(200);
    // The timer got its turn before the filter reached its end.
    expect(ran.indexOf("timer")).toBeGreaterThan(0);
    expect(ran.indexOf("timer")).toBeLessThan(ran.length - 1);
  });
});
