import { describe, expect, test } from "vitest";
import { pointsToData } from "../../collector/alerts/data-feed.ts";
import { STALE_NAN } from "../../src/prometheus/staleness.ts";

describe("committed points as alerting data", () => {
  test("staleness markers (remote write, agent scraping) are no data for the triggers", () => {
    const data = pointsToData({
      tenant: "t",
      origin: "remote-write",
      writes: [
        { type: "gauge", id: "up", points: [{ timestamp: 1, value: 1 }, { timestamp: 2, value: STALE_NAN }, { timestamp: 3, value: 0 }] },
        { type: "availability", id: "a", points: [{ timestamp: 1, value: "down" }] },
      ],
    });
    expect(data.map((d) => [d.id, d.timestamp, d.value])).toEqual([
      ["up", 1, 1],
      ["up", 3, 0],
      ["a", 1, "DOWN"],
    ]);
  });
});
