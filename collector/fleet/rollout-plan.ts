/*
 * The rollout's rules as pure functions (docs/fleet.md, "Upgrades"): which feeds a rollout
 * takes, in which batch each goes, and what one look at the agents' reports changes. The engine
 * (rollout-engine.ts) applies what these decide to the store and the broker.
 */
import type { AgentReport, FeedSelector, RolloutChange, RolloutRecord, RolloutTarget, TargetChange } from "../store/releases/types.ts";

/** Whether a feed's report matches the selector: listed, or carrying every tag (both when both are given). */
export function selects(selector: FeedSelector, report: AgentReport): boolean {
  if (selector.feeds && !selector.feeds.includes(report.feed)) return false;
  for (const [k, v] of Object.entries(selector.tags ?? {})) if (report.tags?.[k] !== v) return false;
  return true;
}

/**
 * The batch of each of `n` feeds (in their order): the first `canary` form batch 0, then batch
 * i (1, 2, …) takes the feeds up to `batches[i-1]` percent of all, rounded up. A share that adds
 * no feed adds no batch.
 */
export function assignBatches(n: number, canary: number, batches: readonly number[]): number[] {
  const out: number[] = [];
  const first = Math.min(canary, n);
  for (let i = 0; i < first; i++) out.push(0);
  let batch = 0;
  for (const pct of batches) {
    const upTo = Math.min(n, Math.ceil((n * pct) / 100));
    if (upTo <= out.length) continue;
    batch++;
    while (out.length < upTo) out.push(batch);
  }
  return out;
}

/** The rollout's feeds as targets, in feed order, with the version each ran. */
export function planTargets(reports: readonly AgentReport[], canary: number, batches: readonly number[], at: number): RolloutTarget[] {
  const feeds = [...reports].sort((a, b) => (a.feed < b.feed ? -1 : a.feed > b.feed ? 1 : 0));
  const batchOf = assignBatches(feeds.length, canary, batches);
  return feeds.map((r, i) => ({ feed: r.feed, batch: batchOf[i]!, state: "pending", ...(r.version === undefined ? {} : { from: r.version }), at }));
}

export interface Step {
  /** Target changes, in feed order. */
  targets: { feed: string; change: TargetChange }[];
  /** The rollout's own change (batch, state), when there is one. */
  rollout?: RolloutChange;
  /** Feeds whose order to publish (newly ordered). */
  order: string[];
}

/**
 * What a report says of a target ordered to run `r.version`: its outcome, or undefined while it
 * is not known. A new version on probation already reports its version, with its upgrade
 * "installing": it has succeeded only once it reports "installed" (or no upgrade of this rollout).
 */
export function outcomeOf(r: RolloutRecord, report: AgentReport | undefined): { state: "succeeded" | "failed"; reason?: string } | undefined {
  if (!report) return undefined;
  const u = report.upgrade;
  const mine = u !== undefined && u.version === r.version && (u.rollout === undefined || u.rollout === r.id);
  if (mine && u.state === "failed") return { state: "failed", reason: `${u.reason ?? "the upgrade failed"}${u.rolledBack ? " (rolled back)" : ""}` };
  if (report.version === r.version && (!mine || u.state === "installed")) return { state: "succeeded" };
  return undefined;
}

/**
 * One look at a rollout: ordered targets take their outcome from the reports (or fail once the
 * timeout has passed), and when every target of the current batch succeeded or failed, the next
 * batch is ordered, or the rollout completes. It does not pause: the engine pauses when a
 * target's change to failed is the one that took (so a failure pauses once, even among
 * collectors sharing a database), and a resumed rollout goes on past the failures before.
 */
export function step(r: RolloutRecord, reports: ReadonlyMap<string, AgentReport>, now: number): Step {
  const out: Step = { targets: [], order: [] };
  if (r.state === "completed") return out;
  const states = new Map(r.targets.map((t) => [t.feed, t.state] as const));
  const change = (feed: string, c: TargetChange) => {
    out.targets.push({ feed, change: c });
    states.set(feed, c.state);
  };
  for (const t of r.targets) {
    if (t.state !== "ordered") continue;
    const outcome = outcomeOf(r, reports.get(t.feed));
    if (outcome) change(t.feed, { ...outcome, at: now });
    // A paused rollout's orders are withdrawn: its feeds are not waited for.
    else if (r.state === "running" && now - (t.at ?? now) > r.timeoutMs) change(t.feed, { state: "failed", reason: `no outcome reported within ${Math.round(r.timeoutMs / 1000)} s`, at: now });
  }
  if (r.state !== "running") return out;
  const before = new Map(r.targets.map((t) => [t.feed, t.state] as const));
  const lastBatch = Math.max(0, ...r.targets.map((t) => t.batch));
  let batch = r.batch;
  for (;;) {
    const current = r.targets.filter((t) => t.batch === batch);
    for (const t of current) {
      if (states.get(t.feed) !== "pending") continue;
      if (reports.get(t.feed)?.version === r.version) change(t.feed, { state: "succeeded", reason: "already ran this version", at: now });
      else {
        change(t.feed, { state: "ordered", at: now });
        out.order.push(t.feed);
      }
    }
    const final = (feed: string) => states.get(feed) === "succeeded" || states.get(feed) === "failed";
    // A new failure stops here: the engine pauses the rollout.
    if (!current.every((t) => final(t.feed)) || current.some((t) => states.get(t.feed) === "failed" && before.get(t.feed) !== "failed")) break;
    if (batch >= lastBatch) {
      out.rollout = { state: "completed", batch };
      return out;
    }
    batch++;
  }
  if (batch !== r.batch) out.rollout = { state: "running", batch };
  return out;
}
