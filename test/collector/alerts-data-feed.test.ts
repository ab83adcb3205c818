import { describe, expect, test } from "vitest";
import { pointsToData } from "../../collector/alerts/data-feed.ts";
import { STALE_NAN } from "../../src/prometheus/staleness.ts";
import { columnsToWrites, type WriteColumns } from "../../src/metrics/write-columns.ts";

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

  test("from columns: the same data as from the writes, only of the watched metrics, without reading the writes", () => {
    const cols: WriteColumns = {
      type: "gauge",
      ids: ["a", "b", "a", "c"],
      counts: Uint32Array.of(2, 1, 3, 1),
      ts: Float64Array.of(1, 2, 3, 4, 5, 6, 7),
      values: Float64Array.of(10, 11, 12, STALE_NAN, 14, 15, 16),
      tags: [],
    };
    const watched = (id: string) => id !== "b";
    const fromWrites = pointsToData({ tenant: "t", origin: "http", writes: columnsToWrites(cols) }, watched);
    const fromColumns = pointsToData(
      {
        tenant: "t",
        origin: "http",
        columns: cols,
        get writes(): never {
          throw new Error("writes read");
        },
      },
      watched,
    );
    expect(fromColumns).toEqual(fromWrites);
    expect(fromColumns.map((d) => [d.id, d.timestamp])).toEqual([
      ["a", 1],
      ["a", 2],
      ["a", 5],
      ["a", 6],
      ["c", 7],
    ]);
  });
});
