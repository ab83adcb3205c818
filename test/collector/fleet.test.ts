import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { body, startTestCollector, type TestCollector } from "../helpers/collector.ts";

let col: TestCollector;
const MIN = 60_000;
// The sparkline's hour ends at each request: the points below land in the buckets the test
// expects while requests come less than a minute after this (flooring it to the minute used
// up to a minute of that margin before the collector had even started).
const now = Date.now();

const write = async (tenant: string, path: string, points: [number, number | string][]) => {
  const res = await col.req(`/svc/metrics/${path}/raw`, { method: "POST", tenant, json: points.map(([timestamp, value]) => ({ timestamp, value })) });
  expect(res.status).toBe(200);
};
const id = (s: string) => encodeURIComponent(s);

beforeAll(async () => {
  col = await startTestCollector();
  const t = "fleet";
  // web-1: up, down, up, and "up" again after a collector restart: online since the last change.
  await write(t, `availability/${id("web-1:outpost_agent_up")}`, [
    [now - 180 * MIN, "up"],
    [now - 120 * MIN, "down"],
    [now - 60 * MIN, "up"],
    [now - 30 * MIN, "up"],
  ]);
  await write(t, `gauges/${id("web-1:outpost_agent_buffer_points")}`, [
    [now - MIN, 5],
    [now - 10_000, 12],
  ]);
  await write(t, `gauges/${id("web-1:outpost_agent_buffer_oldest_age_seconds")}`, [[now - 10_000, 30]]);
  await write(t, `counters/${id("web-1:outpost_agent_points_dropped_size_total")}`, [[now - 10_000, 3]]);
  await write(t, `counters/${id("web-1:outpost_agent_points_dropped_age_total")}`, [[now - 10_000, 0]]);
  await write(t, `counters/${id("web-1:outpost_agent_points_dropped_rejected_total")}`, [[now - 10_000, 2]]);
  await write(t, `gauges/${id("web-1:cpu_usage_percent:total")}`, [
    [now - 59 * MIN, 10],
    [now - 58.5 * MIN, 20],
    [now - MIN, 50],
  ]);
  await write(t, `gauges/${id("web-1:load1")}`, [[now - 5000, 0.5]]);
  // gone: offline for ten minutes, nothing buffered.
  await write(t, `availability/${id("gone:outpost_agent_up")}`, [
    [now - 120 * MIN, "up"],
    [now - 10 * MIN, "down"],
  ]);
  await write(t, `gauges/${id("gone:outpost_agent_buffer_points")}`, [[now - 11 * MIN, 0]]);
  // A feed id with colons: its metrics are still its own, also beside a feed "site".
  await write(t, `availability/${id("site:7:outpost_agent_up")}`, [[now - 5 * MIN, "up"]]);
  await write(t, `availability/${id("site:outpost_agent_up")}`, [[now - 50 * MIN, "up"]]);
  await write(t, `gauges/${id("site:7:cpu_usage_percent:total")}`, [[now - 2 * MIN, 40]]);
  // The inventory names the feed and carries the agent's version (agents sync it).
  const inv = await col.req("/svc/inventory/entity/feed", { method: "POST", tenant: t, json: { id: "web-1", name: "host-a", properties: { agentVersion: "9.9.9" } } });
  expect(inv.status).toBe(201);
  // A feed known only to the inventory.
  expect((await col.req("/svc/inventory/entity/feed", { method: "POST", tenant: t, json: { id: "printer" } })).status).toBe(201);
  // Another tenant's feed.
  await write("other", `availability/${id("secret:outpost_agent_up")}`, [[now - MIN, "up"]]);
});
afterAll(async () => {
  await col.close();
});

describe("GET /svc/fleet/feeds", () => {
  it("summarises every feed of the tenant from what is stored", async () => {
    const res = await col.req("/svc/fleet/feeds", { tenant: "fleet" });
    expect(res.status).toBe(200);
    const feeds = await body(res);
    expect(feeds.map((f: { feed: string }) => f.feed)).toEqual(["gone", "printer", "site", "site:7", "web-1"]);
    const web = feeds[4];
    expect(web).toMatchObject({
      feed: "web-1",
      name: "host-a",
      agentVersion: "9.9.9",
      presence: { state: "up", since: now - 60 * MIN },
      lastData: now - 5000,
      buffer: { points: 12, oldest: now - 10_000 - 30_000, at: now - 10_000 },
      drops: { total: 5, size: 3, age: 0, rejected: 2, at: now - 10_000 },
    });
    expect(web.cpu.values).toHaveLength(30);
    expect(web.cpu.step).toBe(2 * MIN);
    const first = web.cpu.values[0];
    // The bucket holding minute -59 and -58.5 (the hour ends at the request, a little after `now`).
    expect([first, web.cpu.values[1]]).toContainEqual(15);
    expect(web.cpu.values.filter((v: number | null) => v !== null)).toEqual([15, 50]);
    expect(web.cpu.last).toBe(50);
    expect(web.cpu.lastAt).toBe(now - MIN);
  });

  it("shows offline feeds since they went, feeds with colons, and inventory-only feeds", async () => {
    const feeds = await body(await col.req("/svc/fleet/feeds", { tenant: "fleet" }));
    expect(feeds[0]).toMatchObject({ feed: "gone", presence: { state: "down", since: now - 10 * MIN }, buffer: { points: 0 } });
    expect(feeds[0].buffer.oldest).toBeUndefined();
    expect(feeds[1]).toEqual({ feed: "printer" });
    expect(feeds[3]).toMatchObject({ feed: "site:7", presence: { state: "up", since: now - 5 * MIN }, lastData: now - 2 * MIN, cpu: { last: 40 } });
    expect(feeds[2]).toEqual({ feed: "site", presence: { state: "up", since: now - 50 * MIN } });
  });

  it("is per tenant: another tenant's feeds are not listed; none is 204", async () => {
    const other = await body(await col.req("/svc/fleet/feeds", { tenant: "other" }));
    expect(other.map((f: { feed: string }) => f.feed)).toEqual(["secret"]);
    expect((await col.req("/svc/fleet/feeds", { tenant: "empty" })).status).toBe(204);
  });

  it("takes the sparkline's range and buckets; refuses bad ones with a 400", async () => {
    const feeds = await body(await col.req("/svc/fleet/feeds?cpuRange=2h&cpuBuckets=12", { tenant: "fleet" }));
    expect(feeds[4].cpu.values).toHaveLength(12);
    expect(feeds[4].cpu.step).toBe(10 * MIN);
    for (const q of ["cpuRange=5m", "cpuRange=30s", "cpuRange=30d", "cpuBuckets=0", "cpuBuckets=501", "cpuBuckets=x", "feeds=a"]) {
      const res = await col.req(`/svc/fleet/feeds?${q}`, { tenant: "fleet" });
      expect(res.status, q).toBe(400);
      expect((await body(res)).errorMsg, q).toBeTruthy();
    }
    expect((await col.req("/svc/fleet/feeds", { tenant: null })).status).toBe(400);
  });
});
