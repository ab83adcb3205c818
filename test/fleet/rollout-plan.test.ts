/** The rollout's rules without a store: selection, batches, and what each look at the reports decides. */
import { describe, expect, it } from "vitest";
import { assignBatches, planTargets, selects, step } from "../../collector/fleet/rollout-plan.ts";
import type { AgentReport, RolloutRecord } from "../../collector/store/releases/types.ts";

const report = (feed: string, version: string, extra: Partial<AgentReport> = {}): AgentReport => ({ tenant: "t", feed, version, arch: "x64", at: 0, ...extra });

function rollout(feeds: string[], canary: number, batches: number[], extra: Partial<RolloutRecord> = {}): RolloutRecord {
  return {
    tenant: "t",
    id: "r1",
    version: "0.2.0",
    selector: {},
    canary,
    batches,
    force: false,
    deadlineMs: 60_000,
    timeoutMs: 600_000,
    state: "running",
    batch: 0,
    createdAt: 0,
    createdBy: "a",
    updatedAt: 0,
    revision: 0,
    targets: planTargets(feeds.map((f) => report(f, "0.1.0")), canary, batches, 0),
    ...extra,
  };
}

/** Applies a step's target changes to the record, as the store would. */
function apply(r: RolloutRecord, s: ReturnType<typeof step>): RolloutRecord {
  const targets = r.targets.map((t) => {
    const c = s.targets.find((x) => x.feed === t.feed)?.change;
    return c ? { ...t, ...c } : t;
  });
  return { ...r, targets, ...(s.rollout ?? {}) };
}

describe("rollout plan", () => {
  it("selects by listed feeds and by every tag", () => {
    const r = report("a", "0.1.0", { tags: { site: "paris", role: "edge" } });
    expect(selects({}, r)).toBe(true);
    expect(selects({ tags: { site: "paris" } }, r)).toBe(true);
    expect(selects({ tags: { site: "paris", role: "core" } }, r)).toBe(false);
    expect(selects({ feeds: ["a"], tags: { site: "paris" } }, r)).toBe(true);
    expect(selects({ feeds: ["b"] }, r)).toBe(false);
    expect(selects({ tags: { site: "paris" } }, report("b", "0.1.0"))).toBe(false);
  });

  it("puts the canary first, then the feeds up to each share", () => {
    expect(assignBatches(5, 1, [100])).toEqual([0, 1, 1, 1, 1]);
    expect(assignBatches(10, 2, [25, 50, 100])).toEqual([0, 0, 1, 2, 2, 3, 3, 3, 3, 3]);
    // A share that adds nobody adds no batch; a canary larger than the fleet is the whole fleet.
    expect(assignBatches(4, 2, [10, 50, 100])).toEqual([0, 0, 1, 1]);
    expect(assignBatches(2, 5, [100])).toEqual([0, 0]);
  });

  it("orders the canary, then each batch once the one before succeeded, then completes", () => {
    let r = rollout(["a", "b", "c", "d", "e"], 1, [60, 100]);
    let s = step(r, new Map(), 10);
    expect(s.order).toEqual(["a"]);
    r = apply(r, s);
    // Nothing reported: nothing moves.
    expect(step(r, new Map(), 11)).toEqual({ targets: [], order: [] });
    s = step(r, new Map([["a", report("a", "0.2.0")]]), 12);
    expect(s.order).toEqual(["b", "c"]);
    expect(s.rollout).toEqual({ state: "running", batch: 1 });
    r = apply(r, s);
    // A feed already on the version is counted done without an order.
    const reports = new Map([["a", report("a", "0.2.0")], ["b", report("b", "0.2.0")], ["c", report("c", "0.2.0")], ["d", report("d", "0.2.0")]]);
    s = step(r, reports, 13);
    expect(s.order).toEqual(["e"]);
    expect(s.targets.find((t) => t.feed === "d")?.change).toMatchObject({ state: "succeeded", reason: "already ran this version" });
    r = apply(r, s);
    reports.set("e", report("e", "0.2.0"));
    s = step(r, reports, 14);
    expect(s.rollout).toEqual({ state: "completed", batch: 2 });
  });

  it("stops at a failure of the rollout's version and goes past it once resumed", () => {
    let r = rollout(["a", "b", "c"], 1, [100]);
    r = apply(r, step(r, new Map(), 1));
    const failed = report("a", "0.1.0", { upgrade: { state: "failed", version: "0.2.0", rollout: "r1", reason: "exited with code 3 at start", rolledBack: true, at: 2 } });
    const s = step(r, new Map([["a", failed]]), 3);
    expect(s.targets).toEqual([{ feed: "a", change: { state: "failed", reason: "exited with code 3 at start (rolled back)", at: 3 } }]);
    expect(s.order).toEqual([]);
    expect(s.rollout).toBeUndefined();
    // A failure of another rollout's order is not this one's.
    const other = report("a", "0.1.0", { upgrade: { state: "failed", version: "0.2.0", rollout: "r0", at: 2 } });
    expect(step(r, new Map([["a", other]]), 3).targets).toEqual([]);
    // Resumed (the failure is old): the next batch goes.
    r = apply(r, s);
    expect(step(r, new Map([["a", failed]]), 4).order).toEqual(["b", "c"]);
  });

  it("waits for a new version on probation to say it is installed", () => {
    let r = rollout(["a", "b"], 1, [100]);
    r = apply(r, step(r, new Map(), 1));
    const installing = report("a", "0.2.0", { upgrade: { state: "installing", version: "0.2.0", rollout: "r1", at: 2 } });
    expect(step(r, new Map([["a", installing]]), 3).targets).toEqual([]);
    const installed = report("a", "0.2.0", { upgrade: { state: "installed", version: "0.2.0", rollout: "r1", at: 4 } });
    expect(step(r, new Map([["a", installed]]), 5).targets[0]?.change.state).toBe("succeeded");
  });

  it("fails an ordered feed with no outcome within the timeout, only while running", () => {
    let r = rollout(["a", "b"], 1, [100], { timeoutMs: 1000 });
    r = apply(r, step(r, new Map(), 0));
    expect(step(r, new Map(), 1000).targets).toEqual([]);
    expect(step(r, new Map(), 1001).targets[0]?.change).toMatchObject({ state: "failed", reason: "no outcome reported within 1 s" });
    expect(step({ ...r, state: "paused" }, new Map(), 5000).targets).toEqual([]);
  });
});
