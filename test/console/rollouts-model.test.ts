/** The rollouts page's logic: progress batch by batch, the form's reading, the fleet's upgrade words. */
import { describe, expect, it } from "vitest";
import { batchProgress, type FeedUpgrade, progressText, type Rollout, rolloutRequest, DEFAULT_ROLLOUT_FORM, selectorText, upgradeCell } from "../../collector/http/console/web/pages/rollouts-model.ts";

const rollout = (extra: Partial<Rollout> = {}): Rollout => ({
  id: "r1",
  version: "1.1.0",
  canary: 1,
  batches: [50, 100],
  force: false,
  deadlineMs: 120_000,
  state: "running",
  batch: 1,
  createdAt: 0,
  createdBy: "alice",
  updatedAt: 0,
  targets: [
    { feed: "a", batch: 0, state: "succeeded" },
    { feed: "b", batch: 1, state: "ordered" },
    { feed: "c", batch: 1, state: "failed", reason: "exited" },
    { feed: "d", batch: 2, state: "pending" },
    { feed: "e", batch: 2, state: "pending" },
  ],
  ...extra,
});

describe("rollouts model", () => {
  it("shows each batch with its share, counts and phase", () => {
    const b = batchProgress(rollout());
    expect(b.map((x) => [x.label, x.upTo, x.phase, x.counts])).toEqual([
      ["Canary", "1 feed", "done", { pending: 0, ordered: 0, succeeded: 1, failed: 0 }],
      ["Batch 1", "up to 50 %", "under way", { pending: 0, ordered: 1, succeeded: 0, failed: 1 }],
      ["Batch 2", "up to 100 %", "waiting", { pending: 2, ordered: 0, succeeded: 0, failed: 0 }],
    ]);
    expect(batchProgress(rollout({ state: "paused" }))[1]!.phase).toBe("stopped");
    expect(progressText(rollout())).toBe("1 of 5 upgraded, 1 failed");
    expect(selectorText(undefined)).toBe("every feed");
    expect(selectorText({ tags: { site: "paris" }, feeds: ["x"] })).toBe("site=paris, x");
  });

  it("reads the form into the interface's body, or says what is wrong", () => {
    expect(rolloutRequest(DEFAULT_ROLLOUT_FORM)).toEqual({ problem: "Choose the version to roll out" });
    const f = { ...DEFAULT_ROLLOUT_FORM, version: " 1.1.0 ", tags: "site=paris, role = edge", feeds: "a, b,", batches: "25, 50,100", canary: 2, force: true };
    expect(rolloutRequest(f)).toEqual({ body: { version: "1.1.0", tags: { site: "paris", role: "edge" }, feeds: ["a", "b"], canary: 2, batches: [25, 50, 100], deadline: "2mn", force: true } });
    expect(rolloutRequest({ ...f, tags: "site" })).toEqual({ problem: 'Tag "site" is not key=value' });
    expect(rolloutRequest({ ...f, batches: "50, 40, 100" })).toEqual({ problem: "Batches grow and end at 100" });
    expect(rolloutRequest({ ...f, batches: "fifty" })).toEqual({ problem: "Batches are shares in percent, such as 25, 50, 100" });
    expect(rolloutRequest({ ...f, canary: 0 })).toEqual({ problem: "The canary is at least one feed" });
  });

  it("words a feed's upgrade for the fleet page", () => {
    const r = { id: "r1", version: "1.1.0", state: "running" as const };
    const u = (extra: Partial<FeedUpgrade>): FeedUpgrade => ({ feed: "a", version: "1.0.0", ...extra });
    expect(upgradeCell(undefined)).toBeUndefined();
    expect(upgradeCell(u({}))).toBeUndefined();
    expect(upgradeCell(u({ rollout: { ...r, target: { batch: 0, state: "succeeded" } } }))).toMatchObject({ text: "on 1.1.0", tone: "ok" });
    expect(upgradeCell(u({ rollout: { ...r, target: { batch: 0, state: "ordered" } }, upgrade: { state: "downloading", version: "1.1.0", at: 1 } }))).toMatchObject({ text: "downloading 1.1.0", tone: "info" });
    expect(upgradeCell(u({ rollout: { ...r, target: { batch: 0, state: "failed", reason: "exited" } }, upgrade: { state: "failed", version: "1.1.0", rolledBack: true, at: 1 } }))).toEqual({ text: "failed 1.1.0, rolled back", tone: "crit", title: "exited" });
    expect(upgradeCell(u({ rollout: { ...r, state: "paused", target: { batch: 2, state: "pending" } } }))).toMatchObject({ text: "waiting for 1.1.0", tone: "warn" });
    expect(upgradeCell(u({ upgrade: { state: "failed", version: "2.0.0", reason: "refused: the signature is not the pinned release key's", at: 1 } }))).toMatchObject({ text: "failed 2.0.0", tone: "crit" });
  });
});
