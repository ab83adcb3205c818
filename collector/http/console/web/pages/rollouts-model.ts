/*
 * The rollouts page's logic without the DOM (docs/fleet.md, "Upgrades"): the answers of
 * /svc/fleet/rollouts and /svc/fleet/upgrades, a rollout's progress batch by batch, the form's
 * reading, and the words a feed's upgrade is shown with.
 */

import type { FeedSelector, RolloutState, RolloutTarget, TargetState } from "../../../../../src/http/fleet/answers.ts";

export type { RolloutState, RolloutTarget, TargetState };

/** One rollout as GET /svc/fleet/rollouts answers it. */
export interface Rollout {
  id: string;
  version: string;
  /** Absent (an empty map is left out of listings) when every feed was chosen. */
  selector?: FeedSelector;
  canary: number;
  batches: number[];
  force: boolean;
  deadlineMs: number;
  state: RolloutState;
  reason?: string;
  batch: number;
  createdAt: number;
  createdBy: string;
  updatedAt: number;
  targets: RolloutTarget[];
}

/** One feed as GET /svc/fleet/upgrades answers it (collector/fleet/upgrades.ts). */
export interface FeedUpgrade {
  feed: string;
  version?: string;
  arch?: string;
  upgrade?: { state: "downloading" | "installing" | "installed" | "failed"; version: string; rollout?: string; reason?: string; rolledBack?: boolean; at: number };
  rollout?: { id: string; version: string; state: RolloutState; target: { batch: number; state: TargetState; reason?: string } };
}

export interface Release {
  version: string;
  binaries: { arch: string; size: number; sha256: string; uploadedAt: number; uploadedBy: string }[];
}

export type Counts = Record<TargetState, number>;

export interface BatchProgress {
  batch: number;
  /** "Canary", "Batch 1", … */
  label: string;
  /** The share of all feeds done once this batch is (the canary: its count). */
  upTo: string;
  targets: RolloutTarget[];
  counts: Counts;
  /** under way, done, waiting (a later batch), or stopped at (paused with a failure in it). */
  phase: "waiting" | "under way" | "done" | "stopped";
}

const zero = (): Counts => ({ pending: 0, ordered: 0, succeeded: 0, failed: 0 });

export function countTargets(targets: readonly RolloutTarget[]): Counts {
  const c = zero();
  for (const t of targets) c[t.state]++;
  return c;
}

/** The rollout batch by batch, in order, with what each holds and how far it got. */
export function batchProgress(r: Rollout): BatchProgress[] {
  const last = Math.max(0, ...r.targets.map((t) => t.batch));
  const out: BatchProgress[] = [];
  const n = r.targets.length;
  for (let b = 0; b <= last; b++) {
    const targets = r.targets.filter((t) => t.batch === b);
    if (targets.length === 0) continue;
    const counts = countTargets(targets);
    const done = counts.pending === 0 && counts.ordered === 0;
    const phase = b > r.batch ? "waiting" : r.state === "paused" && b === r.batch && counts.failed > 0 ? "stopped" : done ? "done" : "under way";
    // The share that ends this batch: the first whose feeds reach all of this batch's.
    const through = r.targets.filter((t) => t.batch <= b).length;
    const share = r.batches.find((p) => Math.min(n, Math.ceil((n * p) / 100)) >= through) ?? 100;
    const upTo = b === 0 ? `${targets.length} feed${targets.length === 1 ? "" : "s"}` : `up to ${share} %`;
    out.push({ batch: b, label: b === 0 ? "Canary" : `Batch ${b}`, upTo, targets, counts, phase });
  }
  return out;
}

/** "3 of 5 upgraded, 1 failed". */
export function progressText(r: Rollout): string {
  const c = countTargets(r.targets);
  return `${c.succeeded} of ${r.targets.length} upgraded${c.failed > 0 ? `, ${c.failed} failed` : ""}`;
}

/** Which feeds: "site=paris, role=edge", "web-1, web-2", or "every feed". */
export function selectorText(s: Rollout["selector"] = {}): string {
  const parts = [...Object.entries(s.tags ?? {}).map(([k, v]) => `${k}=${v}`), ...(s.feeds ?? [])];
  return parts.length > 0 ? parts.join(", ") : "every feed";
}

export interface RolloutForm {
  version: string;
  /** "site=paris, role=edge" */
  tags: string;
  /** "web-1, web-2" */
  feeds: string;
  canary: number;
  /** "50, 100" */
  batches: string;
  deadline: string;
  force: boolean;
}

export const DEFAULT_ROLLOUT_FORM: RolloutForm = { version: "", tags: "", feeds: "", canary: 1, batches: "100", deadline: "2mn", force: false };

const list = (s: string) =>
  s
    .split(",")
    .map((x) => x.trim())
    .filter((x) => x !== "");

/** The POST /svc/fleet/rollouts body of the form, or what is wrong with it (the collector checks again). */
export function rolloutRequest(f: RolloutForm): { body: Record<string, unknown> } | { problem: string } {
  if (f.version.trim() === "") return { problem: "Choose the version to roll out" };
  const tags: Record<string, string> = {};
  for (const item of list(f.tags)) {
    const eq = item.indexOf("=");
    if (eq <= 0 || eq === item.length - 1) return { problem: `Tag "${item}" is not key=value` };
    tags[item.slice(0, eq).trim()] = item.slice(eq + 1).trim();
  }
  const batches = list(f.batches).map(Number);
  if (batches.length === 0 || batches.some((b) => !Number.isFinite(b) || b <= 0 || b > 100)) return { problem: "Batches are shares in percent, such as 25, 50, 100" };
  if (batches.some((b, i) => i > 0 && b <= batches[i - 1]!) || batches.at(-1) !== 100) return { problem: "Batches grow and end at 100" };
  if (!Number.isInteger(f.canary) || f.canary < 1) return { problem: "The canary is at least one feed" };
  const feeds = list(f.feeds);
  return {
    body: {
      version: f.version.trim(),
      ...(Object.keys(tags).length > 0 ? { tags } : {}),
      ...(feeds.length > 0 ? { feeds } : {}),
      canary: f.canary,
      batches,
      deadline: f.deadline.trim() || "2mn",
      ...(f.force ? { force: true } : {}),
    },
  };
}

/** How the fleet page shows a feed's upgrade: a word, its tone, and the reason behind it. */
export function upgradeCell(u: FeedUpgrade | undefined): { text: string; tone: "ok" | "crit" | "warn" | "info" | ""; title?: string } | undefined {
  if (!u) return undefined;
  const r = u.rollout;
  const own = u.upgrade;
  // The agent's own report goes first while it works on the rollout's version.
  if (own && r && own.version === r.version && (own.state === "downloading" || own.state === "installing")) return { text: `${own.state} ${own.version}`, tone: "info" };
  if (r) {
    const t = r.target;
    const reason = t.reason ?? (own?.version === r.version ? own.reason : undefined);
    if (t.state === "failed") return { text: `failed ${r.version}${own?.rolledBack && own.version === r.version ? ", rolled back" : ""}`, tone: "crit", title: reason };
    if (t.state === "succeeded") return { text: `on ${r.version}`, tone: "ok", title: `rollout ${r.id}` };
    if (t.state === "ordered") return { text: `ordered ${r.version}`, tone: "info", title: `rollout ${r.id}, batch ${t.batch}` };
    return { text: `waiting for ${r.version}`, tone: r.state === "paused" ? "warn" : "", title: `rollout ${r.id} (${r.state}), batch ${t.batch}` };
  }
  if (own?.state === "failed") return { text: `failed ${own.version}`, tone: "crit", title: own.reason };
  return undefined;
}
