import { describe, expect, it } from "vitest";
import { type ConditionEval, createAlertsEngine, type DampeningState } from "../../src/alerts/index.ts";
import { dampeningState, fullTrigger, TENANT, testEngine, threshold } from "./helpers.ts";

const dampening = dampeningState;

const noEvals = (): ConditionEval[] => [];

/** Feeds [truth, time] steps; returns the indices at which the dampening was satisfied (resetting after each). */
function satisfiedAt(d: DampeningState, steps: [boolean, number][]): number[] {
  const out: number[] = [];
  steps.forEach(([truth, now], i) => {
    d.step(truth, now, noEvals);
    if (d.satisfied) {
      out.push(i);
      d.reset();
    }
  });
  return out;
}

const at0 = (truths: boolean[]): [boolean, number][] => truths.map((t) => [t, 0]);
const T = true;
const F = false;

describe("STRICT(N): N consecutive true evaluations", () => {
  it("fires on the Nth true in a row; a false starts over", () => {
    expect(satisfiedAt(dampening("STRICT", 3, 3), at0([T, T, F, T, T, T]))).toEqual([5]);
  });

  it("after firing it counts afresh", () => {
    expect(satisfiedAt(dampening("STRICT", 2, 2), at0([T, T, T, T, T]))).toEqual([1, 3]);
  });

  it("keeps the evaluations of each true step as the evalSets", () => {
    const d = dampening("STRICT", 2, 2);
    let n = 0;
    const evals = () => [{ n: ++n } as unknown as ConditionEval];
    d.step(true, 0, evals);
    d.step(true, 0, evals);
    expect(d.satisfied).toBe(true);
    expect(d.satisfyingEvals).toEqual([[{ n: 1 }], [{ n: 2 }]]);
  });

  it("records nothing for false steps", () => {
    const d = dampening("STRICT", 2, 2);
    let calls = 0;
    d.step(false, 0, () => {
      calls++;
      return [];
    });
    expect(calls).toBe(0);
    expect([d.numEvals, d.numTrueEvals]).toEqual([0, 0]);
  });
});

describe("RELAXED_COUNT(N, M): N true evaluations out of M", () => {
  it("fires on the Nth true even with falses in between", () => {
    expect(satisfiedAt(dampening("RELAXED_COUNT", 2, 4), at0([T, F, F, T]))).toEqual([3]);
  });

  it("starts over only when the remaining evaluations cannot reach N", () => {
    // T F F F: after the 4th, one more true is needed but no evaluation is left
    const d = dampening("RELAXED_COUNT", 2, 4);
    satisfiedAt(d, at0([T, F, F]));
    expect([d.numEvals, d.numTrueEvals]).toEqual([3, 1]);
    satisfiedAt(d, at0([F]));
    expect([d.numEvals, d.numTrueEvals]).toEqual([0, 0]);
  });

  it("three leading falses of M = 4 with N = 2 reset, then two trues fire", () => {
    expect(satisfiedAt(dampening("RELAXED_COUNT", 2, 4), at0([F, F, F, T, T]))).toEqual([4]);
  });
});

describe("RELAXED_TIME(N, T): N true evaluations within T", () => {
  it("fires when the Nth true comes less than T after the first", () => {
    expect(satisfiedAt(dampening("RELAXED_TIME", 2, 0, 1000), [[T, 0], [F, 100], [T, 500]])).toEqual([2]);
  });

  it("false evaluations never reset it", () => {
    expect(satisfiedAt(dampening("RELAXED_TIME", 2, 0, 1000), [[T, 0], [F, 1], [F, 2], [F, 3], [T, 999]])).toEqual([4]);
  });

  it("at exactly T it neither fires nor starts over; past T the window starts again", () => {
    const d = dampening("RELAXED_TIME", 2, 0, 1000);
    expect(satisfiedAt(d, [[T, 0], [T, 1000]])).toEqual([]);
    expect(satisfiedAt(d, [[T, 1500], [T, 1600]])).toEqual([1]);
  });
});

describe("STRICT_TIME(T): only true evaluations for at least T", () => {
  it("the first true starts the clock; a later true at or after T fires", () => {
    expect(satisfiedAt(dampening("STRICT_TIME", 0, 0, 1000), [[T, 0], [T, 999], [T, 1000]])).toEqual([2]);
  });

  it("a false starts over", () => {
    expect(satisfiedAt(dampening("STRICT_TIME", 0, 0, 1000), [[T, 0], [F, 500], [T, 600], [T, 1500], [T, 1600]])).toEqual([4]);
  });

  it("one true evaluation alone never fires, however long ago", () => {
    const d = dampening("STRICT_TIME", 0, 0, 1000);
    expect(satisfiedAt(d, [[T, 0]])).toEqual([]);
    expect(d.checkTimeout(1_000_000)).toBe(false);
  });
});

describe("STRICT_TIMEOUT(T)", () => {
  it("satisfies at start + T without further evaluations, unless a false came", () => {
    const d = dampening("STRICT_TIMEOUT", 0, 0, 1000);
    d.step(true, 5000, noEvals);
    expect(d.timeoutAt()).toBe(6000);
    expect(d.checkTimeout(5999)).toBe(false);
    expect(d.checkTimeout(6000)).toBe(true);
    expect(d.satisfied).toBe(true);

    const e = dampening("STRICT_TIMEOUT", 0, 0, 1000);
    e.step(true, 0, noEvals);
    e.step(false, 10, noEvals);
    expect(e.timeoutAt()).toBeUndefined();
    expect(e.checkTimeout(5000)).toBe(false);
  });

  it("in the engine: fires from the timer with no more data, at exactly start + T", () => {
    const h = testEngine();
    h.engine.loadTrigger(
      fullTrigger({
        trigger: { id: "hot", enabled: true },
        conditions: [threshold("temp", "GT", 80)],
        dampenings: [{ type: "STRICT_TIMEOUT", evalTimeSetting: 60_000 }],
      }),
    );
    const start = h.clock.now();
    h.engine.sendData([h.datum("temp", 90)]);
    h.clock.advance(59_999);
    expect(h.alerts()).toHaveLength(0);
    h.clock.advance(1);
    expect(h.alerts()).toHaveLength(1);
    expect(h.alerts()[0]!.ctime).toBe(start + 60_000);
    expect(h.alerts()[0]!.evalSets).toHaveLength(1);
    expect(h.alerts()[0]!.dampening).toMatchObject({ type: "STRICT_TIMEOUT", evalTimeSetting: 60_000 });
  });

  it("in the engine: a false evaluation before T cancels the firing", () => {
    const h = testEngine();
    h.engine.loadTrigger(
      fullTrigger({
        trigger: { id: "hot", enabled: true },
        conditions: [threshold("temp", "GT", 80)],
        dampenings: [{ type: "STRICT_TIMEOUT", evalTimeSetting: 60_000 }],
      }),
    );
    h.engine.sendData([h.datum("temp", 90)]);
    h.clock.advance(30_000);
    h.engine.sendData([h.datum("temp", 70)]);
    h.clock.advance(60_000);
    expect(h.alerts()).toHaveLength(0);
    // a new run of trues fires T after its own start
    h.engine.sendData([h.datum("temp", 95)]);
    h.clock.advance(60_000);
    expect(h.alerts()).toHaveLength(1);
  });

  it("in the engine: true data reaching T fire it too, and the late timer then does nothing", () => {
    // a scheduler whose timers run only when the test says so
    let now = 0;
    const timers: (() => void)[] = [];
    const alerts: unknown[] = [];
    const engine = createAlertsEngine({
      clock: () => now,
      scheduler: { setTimeout: (fn) => timers.push(fn), clearTimeout: () => {} },
      listener: (e) => {
        if (e.kind === "alert") alerts.push(e.alert);
      },
    });
    engine.loadTrigger(
      fullTrigger({
        trigger: { id: "hot", enabled: true },
        conditions: [threshold("temp", "GT", 80)],
        dampenings: [{ type: "STRICT_TIMEOUT", evalTimeSetting: 1000 }],
      }),
    );
    engine.sendData([{ tenantId: TENANT, id: "temp", timestamp: 1, value: 90 }]);
    now = 1000;
    engine.sendData([{ tenantId: TENANT, id: "temp", timestamp: 2000, value: 91 }]);
    expect(alerts).toHaveLength(1);
    for (const fn of timers.splice(0)) fn();
    expect(alerts).toHaveLength(1);
  });
});

describe("implicit dampening", () => {
  it("a trigger without dampening behaves as STRICT(1): every true evaluation fires", () => {
    const h = testEngine();
    h.engine.loadTrigger(fullTrigger({ trigger: { id: "plain", enabled: true }, conditions: [threshold("x", "GT", 1)] }));
    h.send("x", [2, 0, 2, 2]);
    expect(h.alerts()).toHaveLength(3);
    expect(h.alerts()[0]!.dampening).toEqual({
      tenantId: TENANT,
      triggerId: "plain",
      triggerMode: "FIRING",
      type: "STRICT",
      evalTrueSetting: 1,
      evalTotalSetting: 1,
      evalTimeSetting: 0,
      dampeningId: `${TENANT}-plain-FIRING`,
    });
  });
});

describe("dampening times come from the engine clock, not from data timestamps", () => {
  it("STRICT_TIME measures engine time even when data timestamps are far apart", () => {
    const h = testEngine();
    h.engine.loadTrigger(
      fullTrigger({
        trigger: { id: "st", enabled: true },
        conditions: [threshold("x", "GT", 1)],
        dampenings: [{ type: "STRICT_TIME", evalTimeSetting: 10_000 }],
      }),
    );
    h.engine.sendData([h.datum("x", 5, 0)]);
    h.engine.sendData([h.datum("x", 5, 999_999_999)]); // a day later by timestamp, no time by clock
    expect(h.alerts()).toHaveLength(0);
    h.clock.advance(10_000);
    h.engine.sendData([h.datum("x", 5, 1_000_000_000)]);
    expect(h.alerts()).toHaveLength(1);
  });
});
