/**
 * The memory governor's young collections (src/http/memory-governor.ts, issue 28): one
 * scheduled once a spacing of input or garbage was counted, one at a time, from a timer; none
 * while idle or with the target off. The timer and the collection are the test's.
 */
import { describe, expect, it } from "vitest";
import { MemoryGovernor, YOUNG_EVERY_MS, YOUNG_SPACING } from "../../src/http/memory-governor.ts";

const MB = 1024 * 1024;

describe("MemoryGovernor's young collections", () => {
  it("schedules a young collection once a spacing of input was counted, one at a time, none while idle or disabled", () => {
    const timers: { fn: () => void; ms: number }[] = [];
    let young = 0;
    const make = (o: { target: number; youngEveryMs?: number }) =>
      new MemoryGovernor({
        targetBytes: o.target,
        limitBytes: 0,
        youngEveryMs: o.youngEveryMs,
        rss: () => 10 * MB,
        collect: () => {},
        heap: () => 10 * MB,
        collectYoung: () => young++,
        schedule: (fn, ms) => timers.push({ fn, ms }),
      });
    const g = make({ target: 200 * MB });
    // Idle: nothing scheduled; under the spacing, nothing yet.
    expect(timers).toHaveLength(0);
    g.admit(YOUNG_SPACING / 4);
    g.collectIfDue(YOUNG_SPACING / 4);
    g.garbage(YOUNG_SPACING / 4);
    expect(timers).toHaveLength(0);
    // Bodies, MQTT batches, sealing garbage and chunked bodies all count; one is scheduled until it ran.
    g.received(YOUNG_SPACING / 4);
    expect(timers).toHaveLength(1);
    expect(timers[0]!.ms).toBe(YOUNG_EVERY_MS);
    g.admit(4 * YOUNG_SPACING);
    expect(timers).toHaveLength(1);
    expect(young).toBe(0);
    timers.shift()!.fn();
    expect(young).toBe(1);
    expect(g.youngCollections).toBe(1);
    expect(g.collections).toBe(0);
    // What came while one was pending counts toward the next one no more: a spacing again.
    expect(timers).toHaveLength(0);
    g.admit(YOUNG_SPACING - 1);
    expect(timers).toHaveLength(0);
    g.admit(1);
    expect(timers).toHaveLength(1);
    timers.shift()!.fn();
    expect(young).toBe(2);
    // Disabled with the target (--memory-target 0) or by its option.
    for (const off of [make({ target: 0 }), make({ target: 200 * MB, youngEveryMs: 0 })]) {
      off.admit(4 * YOUNG_SPACING);
      off.collectIfDue(4 * YOUNG_SPACING);
      off.garbage(4 * YOUNG_SPACING);
    }
    expect(timers).toHaveLength(0);
  });
});
