import { describe, expect, it } from "vitest";
import { GarbageBudget } from "../../src/runtime/garbage-budget.ts";

const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));

describe("GarbageBudget", () => {
  it("collects once the budget is spent, after the work in progress, then starts over", async () => {
    let collections = 0;
    let now = 0;
    const g = new GarbageBudget({ budget: 100, minIntervalMs: 1000, collect: () => collections++, now: () => now });
    g.spend(60);
    await tick();
    expect(collections).toBe(0);
    g.spend(60);
    // Not in the middle of the caller's work: on a later turn of the event loop.
    expect(collections).toBe(0);
    await tick();
    expect(collections).toBe(1);
    g.spend(99);
    await tick();
    expect(collections).toBe(1);
    now += 1000;
    g.spend(1);
    await tick();
    expect(collections).toBe(2);
    expect(g.collections).toBe(2);
  });

  it("waits for the minimum interval, and one collection pays for all the work before it", async () => {
    let collections = 0;
    let now = 0;
    const g = new GarbageBudget({ budget: 10, minIntervalMs: 30, collect: () => collections++, now: () => now });
    g.spend(10);
    await tick();
    expect(collections).toBe(1);
    now += 5;
    g.spend(50);
    g.spend(50);
    await tick();
    expect(collections).toBe(1);
    await tick(40);
    expect(collections).toBe(2);
  });

  it("collects nothing once stopped", async () => {
    let collections = 0;
    const g = new GarbageBudget({ budget: 1, minIntervalMs: 0, collect: () => collections++ });
    g.spend(5);
    g.stop();
    g.spend(5);
    await tick(5);
    expect(collections).toBe(0);
  });

  it("runs the engine's full collection by default", async () => {
    const g = new GarbageBudget({ budget: 1, minIntervalMs: 0 });
    g.spend(1);
    await tick(5);
    expect(g.collections).toBe(1);
  });

  it("with release, runs Bun.gc(true): a full collection that also hands free pages back", async () => {
    const real = Bun.gc;
    const calls: (boolean | undefined)[] = [];
    (Bun as { gc: (force?: boolean) => void }).gc = (force?: boolean) => {
      calls.push(force);
      real(force);
    };
    try {
      const g = new GarbageBudget({ budget: 1, minIntervalMs: 0, release: true });
      g.spend(1);
      await tick(5);
      expect(g.collections).toBe(1);
      expect(calls).toEqual([true]);
    } finally {
      (Bun as { gc: typeof real }).gc = real;
    }
  });
});
