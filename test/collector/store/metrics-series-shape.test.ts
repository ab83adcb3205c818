/**
 * The store's series objects (collector/store/metrics/sqlite/state.ts, seriesMeta): every one has
 * the same fields in the same order, whether the series was created by a write, loaded when the
 * store opened, written to since or given a head — so the engine gives them one shape and keeps
 * every field in the object (issue 28: fields added later went to a second allocation, read by
 * every remote-write request).
 */
import { describe, expect, it } from "vitest";
import type { SeriesMeta, StoreState } from "../../../collector/store/metrics/sqlite/state.ts";
import type { SqliteMetricsStore } from "../../../collector/store/metrics/sqlite/store.ts";
import { sqliteMetricsStoresPerTest } from "../../helpers/temp-metrics-store.ts";

const stores = sqliteMetricsStoresPerTest("outpost-series-shape-");
const OPTS = { synchronous: "NORMAL", maintenanceIntervalMs: 3_600_000 } as const;

const metas = (store: SqliteMetricsStore): SeriesMeta[] => [...(store as unknown as { s: StoreState }).s.bySid.values()];

describe("the store's series objects", () => {
  it("have one set of fields in one order, created, loaded, written to and tagged", async () => {
    let store = await stores.open(OPTS);
    await store.write("t1", [{ type: "gauge", id: "created", points: [{ timestamp: 1_000, value: 1 }] }]);
    await store.updateTags("t1", "gauge", "tagged", { host: "a" });
    await store.close();
    store = await stores.reopen(OPTS);
    // Loaded at the open; one written to since (a head), one new, one of another tenant.
    await store.write("t1", [{ type: "gauge", id: "created", points: [{ timestamp: 2_000, value: 2 }] }]);
    await store.write("t2", [{ type: "counter", id: "fresh", points: [{ timestamp: 1_000, value: 3 }] }]);
    const all = metas(store);
    expect(all.map((m) => m.id).sort()).toEqual(["created", "fresh", "tagged"]);
    expect(all.find((m) => m.id === "created")!.head).toBeDefined();
    const fields = Object.keys(all[0]!);
    // The fields a write reads first, the head among them from the start; twelve at most (the
    // engine's object for twelve fields is 112 bytes, for thirteen 160).
    expect(fields.slice(0, 6)).toEqual(["listedAt", "sid", "tenant", "type", "id", "head"]);
    expect(fields.length).toBeLessThanOrEqual(12);
    for (const m of all) expect(Object.keys(m)).toEqual(fields);
    await store.close();
  });
});
