/**
 * A series' own retention (its definition's dataRetention), kept beside the store's series
 * objects rather than in each (collector/store/metrics/sqlite/state.ts, `retentions`): stored,
 * read back after a reopen, changed by an overwrite, and gone with the series it belonged to.
 */
import { describe, expect, it } from "vitest";
import { sqliteMetricsStoresPerTest } from "../../helpers/temp-metrics-store.ts";

const stores = sqliteMetricsStoresPerTest("outpost-series-retention-");

describe("a series' own retention", () => {
  it("is kept through a reopen and an overwrite, and goes with its series", async () => {
    const defaultRetentionDays = 7;
    const opts = { synchronous: "NORMAL", maintenanceIntervalMs: 3_600_000, defaultRetentionDays } as const;
    let store = await stores.open(opts);
    expect(await store.createMetric({ tenantId: "t", type: "gauge", id: "own", dataRetention: 2 }, false)).toBe("created");
    expect(await store.createMetric({ tenantId: "t", type: "counter", id: "own", dataRetention: 30 }, false)).toBe("created");
    await store.updateTags("t", "gauge", "plain", { host: "a" });
    await store.close();
    store = await stores.reopen(opts);
    expect((await store.getMetric("t", "gauge", "own"))?.dataRetention).toBe(2);
    expect((await store.getMetric("t", "counter", "own"))?.dataRetention).toBe(30);
    expect((await store.getMetric("t", "gauge", "plain"))?.dataRetention).toBe(defaultRetentionDays);
    // Retagging keeps it; an overwrite sets it anew.
    await store.updateTags("t", "gauge", "own", { host: "b" });
    expect(await store.getMetric("t", "gauge", "own")).toMatchObject({ tags: { host: "b" }, dataRetention: 2 });
    expect(await store.createMetric({ tenantId: "t", type: "gauge", id: "own", dataRetention: 5 }, true)).toBe("overwritten");
    expect((await store.getMetric("t", "gauge", "own"))?.dataRetention).toBe(5);
    // Deleted and created again without one: the default, now and after a reopen.
    expect(await store.deleteMetric("t", "gauge", "own")).toBe(true);
    expect(await store.createMetric({ tenantId: "t", type: "gauge", id: "own" }, false)).toBe("created");
    expect((await store.getMetric("t", "gauge", "own"))?.dataRetention).toBe(defaultRetentionDays);
    await store.close();
    store = await stores.reopen(opts);
    expect((await store.getMetric("t", "gauge", "own"))?.dataRetention).toBe(defaultRetentionDays);
    expect((await store.getMetric("t", "counter", "own"))?.dataRetention).toBe(30);
    await store.close();
  });
});
