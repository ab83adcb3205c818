import { describe, expect, it } from "vitest";
import { sparkPath } from "../../collector/http/console/web/components/sparkline.tsx";
import { type FeedSummary, filterFeeds, fleetTotals, sortFeeds } from "../../collector/http/console/web/pages/fleet-model.ts";

const feeds: FeedSummary[] = [
  { feed: "web-10", name: "alpha", presence: { state: "up", since: 5 }, agentVersion: "0.2.0", buffer: { points: 0, at: 1 }, cpu: { start: 0, step: 1, values: [], last: 20 } },
  { feed: "web-2", presence: { state: "down", since: 9 }, buffer: { points: 500, oldest: 3, at: 9 }, drops: { total: 7, size: 7, age: 0, rejected: 0, at: 9 } },
  { feed: "printer" },
  { feed: "db-1", name: "beta", presence: { state: "up", since: 2 }, agentVersion: "0.1.0", buffer: { points: 12, oldest: 8, at: 9 }, cpu: { start: 0, step: 1, values: [], last: 80 } },
];
const ids = (list: FeedSummary[]) => list.map((f) => f.feed);

describe("fleet filtering and sorting", () => {
  it("filters by text over id, host name and version, and by presence", () => {
    expect(ids(filterFeeds(feeds, "WEB", "all"))).toEqual(["web-10", "web-2"]);
    expect(ids(filterFeeds(feeds, "beta", "all"))).toEqual(["db-1"]);
    expect(ids(filterFeeds(feeds, "0.1", "all"))).toEqual(["db-1"]);
    expect(ids(filterFeeds(feeds, "", "down"))).toEqual(["web-2"]);
    expect(ids(filterFeeds(feeds, "", "unknown"))).toEqual(["printer"]);
    expect(ids(filterFeeds(feeds, "web", "up"))).toEqual(["web-10"]);
  });

  it("sorts offline first by status, ids in natural order, and leaves feeds without a value last either way", () => {
    expect(ids(sortFeeds(feeds, { key: "status", dir: "asc" }))).toEqual(["web-2", "printer", "db-1", "web-10"]);
    expect(ids(sortFeeds(feeds, { key: "feed", dir: "asc" }))).toEqual(["db-1", "printer", "web-2", "web-10"]);
    expect(ids(sortFeeds(feeds, { key: "buffer", dir: "desc" }))).toEqual(["web-2", "db-1", "web-10", "printer"]);
    expect(ids(sortFeeds(feeds, { key: "buffer", dir: "asc" }))).toEqual(["web-10", "db-1", "web-2", "printer"]);
    expect(ids(sortFeeds(feeds, { key: "oldest", dir: "asc" }))).toEqual(["web-2", "db-1", "printer", "web-10"]);
    expect(ids(sortFeeds(feeds, { key: "cpu", dir: "desc" }))).toEqual(["db-1", "web-10", "printer", "web-2"]);
    expect(ids(sortFeeds(feeds, { key: "version", dir: "desc" }))).toEqual(["web-10", "db-1", "printer", "web-2"]);
  });

  it("totals the fleet", () => {
    expect(fleetTotals(feeds)).toEqual({ feeds: 4, up: 2, down: 1, unknown: 1, buffered: 512, drops: 7, conflicts: 0, configFailed: 0 });
  });
});

describe("sparkline", () => {
  it("draws runs of values, broken where a bucket is empty, on a fixed scale", () => {
    const { line, area } = sparkPath([0, 50, null, 100, 100], 40, 12, 100);
    expect(line).toBe("M0.0,11.0L10.0,6.0M30.0,1.0L40.0,1.0");
    expect(area.match(/Z/g)).toHaveLength(2);
    expect(sparkPath([null, null], 40, 12, 100)).toEqual({ line: "", area: "" });
  });
});
