import { describe, expect, it } from "vitest";
import { canonicalJson, lineDiff, parseConfigText, parseTagsText, reaches, revisionCounts, runningRevision, targetLabel } from "../../collector/http/console/web/pages/fleet-config-model.ts";
import { configCell, type FeedSummary, filterFeeds, fleetTotals, sortFeeds } from "../../collector/http/console/web/pages/fleet-model.ts";

const id = (tags: Record<string, string>) => ({ instance: "0123456789abcdef0123456789abcdef", since: 1, seenAt: 1, tags });
const feeds: FeedSummary[] = [
  { feed: "edge-1", identity: id({ role: "edge", site: "paris" }), config: { desired: 3, applied: 3, state: "APPLIED" } },
  { feed: "edge-2", identity: id({ role: "edge" }), config: { desired: 3, applied: 2, state: "FAILED", error: "StatsD cannot listen" } },
  { feed: "edge-3", identity: id({ role: "edge" }), config: { desired: 3, applied: 3, state: "APPLIED" }, conflicts: [{ instance: "f".repeat(32), firstAt: 1, lastAt: 2, attempts: 2 }] },
  { feed: "core-1", identity: id({ role: "core" }) },
  { feed: "old-agent" },
];

describe("the configuration editor's model", () => {
  it("reads targets written as text and finds the feeds they reach", () => {
    expect(parseTagsText("role=edge, site=paris")).toEqual({ tags: { role: "edge", site: "paris" } });
    expect(parseTagsText("  ")).toEqual({ error: "Name at least one tag, as role=edge" });
    expect(parseTagsText("role")).toEqual({ error: "“role” is not name=value" });
    expect(targetLabel({ tags: { role: "edge", site: "paris" } })).toBe("role=edge, site=paris");
    expect(targetLabel({ all: true })).toBe("all feeds");
    expect(feeds.filter((f) => reaches({ tags: { role: "edge" } }, f)).map((f) => f.feed)).toEqual(["edge-1", "edge-2", "edge-3"]);
    expect(feeds.filter((f) => reaches({ feed: "old-agent" }, f)).map((f) => f.feed)).toEqual(["old-agent"]);
  });

  it("diffs against the revision most of the reached feeds run", () => {
    expect(runningRevision({ tags: { role: "edge" } }, feeds)).toEqual({ revision: 3, feeds: 2, of: 3 });
    expect(runningRevision({ tags: { role: "core" } }, feeds)).toEqual({ revision: 0, feeds: 1, of: 1 });
    expect(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: 2 }], c: 3 } })).toBe(JSON.stringify({ a: { c: 3, d: [2, { y: 2, z: 1 }] }, b: 1 }, null, 2));
    const before = canonicalJson({ "host-interval": "20s", "log-level": "info" });
    const after = canonicalJson({ "host-interval": "30s", "log-level": "info", "buffer-max-age": "7d" });
    expect(lineDiff(before, after)).toEqual([
      { kind: " ", text: "{" },
      { kind: "-", text: '  "host-interval": "20s",' },
      { kind: "+", text: '  "buffer-max-age": "7d",' },
      { kind: "+", text: '  "host-interval": "30s",' },
      { kind: " ", text: '  "log-level": "info"' },
      { kind: " ", text: "}" },
    ]);
    expect(lineDiff("", "{}")).toEqual([{ kind: "+", text: "{}" }]);
    expect(parseConfigText("[1]")).toEqual({ error: 'A configuration is an object: {"option": value, …}' });
    expect(parseConfigText("{")).toMatchObject({ error: expect.stringMatching(/^Not JSON/) });
    expect(revisionCounts(3, feeds)).toEqual({ desired: 3, applied: 2, failed: 1 });
  });

  it("shows each feed's configuration state, finds feeds by tag, sorts failures first and counts conflicts", () => {
    expect(configCell(feeds[1]!.config)).toMatchObject({ text: "rev 3 failed", tone: "bad", title: "Refused revision 3, runs 2: StatsD cannot listen" });
    expect(configCell(undefined)).toMatchObject({ text: "local", tone: "muted" });
    expect(configCell({ desired: 4, applied: 3, state: "APPLYING" }).text).toBe("rev 4 pending");
    expect(configCell({ desired: 4, applied: 4, state: "APPLIED", kept: ["inputs"] }).title).toBe("Runs revision 4; kept local (pinned): inputs");
    expect(filterFeeds(feeds, "site=paris", "all").map((f) => f.feed)).toEqual(["edge-1"]);
    expect(filterFeeds(feeds, "0123456789", "all").length).toBe(4);
    expect(sortFeeds(feeds, { key: "config", dir: "asc" }).map((f) => f.feed)).toEqual(["edge-2", "edge-1", "edge-3", "core-1", "old-agent"]);
    expect(fleetTotals(feeds)).toMatchObject({ conflicts: 1, configFailed: 1 });
  });
});
