import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { InventoryEvents } from "../../collector/events/inventory-events.ts";
import { PointsBus } from "../../collector/events/points-bus.ts";
import { metricDefinitionsOf } from "../../collector/ingest/agent-inventory.ts";
import { registerIngestCounters } from "../../collector/ingest/ingest-telemetry.ts";
import { MessageHandler } from "../../collector/ingest/message-handler.ts";
import { openPostgresInventoryStore } from "../../collector/store/inventory/postgres.ts";
import { openSqliteInventoryStore } from "../../collector/store/inventory/sqlite.ts";
import type { InventoryStore } from "../../collector/store/inventory/types.ts";
import type { MetricsStore } from "../../collector/store/metrics/types.ts";
import { CanonicalPath } from "../../src/inventory/canonical-path.ts";
import { parseStructure } from "../../src/inventory/structure.ts";
import { createLogger } from "../../src/log/logger.ts";
import type { MetricType, Tags } from "../../src/metrics/model.ts";
import { createDecoder, createEncoder } from "../../src/protocol/cbor.ts";
import { decodeInventoryAck, encodeInventory, type InventoryAck } from "../../src/protocol/inventory-messages.ts";
import { DEFAULT_CLOCK_WINDOW } from "../../src/protocol/clock-window.ts";
import { Telemetry } from "../../src/telemetry/registry.ts";
import { createTestDatabase, migrateAll, PostgresProxy, type TestDatabase } from "../helpers/postgres.ts";

const enc = createEncoder();
const dec = createDecoder();
const cleanup: (() => void | Promise<void>)[] = [];
let pg: TestDatabase;
beforeAll(async () => {
  pg = await createTestDatabase();
  await migrateAll(pg.sql);
});
afterAll(() => pg.drop());
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
  await pg.sql.unsafe("TRUNCATE inv_entity, inv_relationship");
});

/** Where the collector's inventory is stored. */
const backends: { name: string; open(dir: string): InventoryStore }[] = [
  { name: "SQLite", open: (dir) => openSqliteInventoryStore(join(dir, "inventory.db")) },
  { name: "PostgreSQL", open: () => openPostgresInventoryStore(pg.sql) },
];

const structure = (metricProps: Record<string, unknown> = { feed: "f1", host: "h", weight: 3 }) => ({
  type: "feed",
  data: { id: "ignored" },
  children: {
    resourceType: [{ data: { id: "host" } }],
    metricType: [
      { data: { id: "load", type: "GAUGE", unit: "NONE", collectionInterval: 10 } },
      { data: { id: "forks", type: "COUNTER", unit: "NONE", collectionInterval: 10 } },
      { data: { id: "rate", type: "COUNTER_RATE", unit: "PER_SECOND", collectionInterval: 10 } },
    ],
    resource: [
      {
        data: { id: "host", resourceTypePath: "/f;f1/rt;host" },
        children: {
          metric: [
            { data: { id: "f1:load1", metricTypePath: "/f;f1/mt;load", collectionInterval: 10, properties: metricProps } },
            { data: { id: "f1:forks", metricTypePath: "../mt;forks", collectionInterval: 10 } },
            { data: { id: "f1:rate", metricTypePath: "/f;f1/mt;rate", collectionInterval: 10 } },
          ],
        },
      },
    ],
  },
});

function setup(open: (dir: string) => InventoryStore = backends[0]!.open) {
  const dir = mkdtempSync(join(tmpdir(), "outpost-agent-inv-"));
  const inventoryStore = open(dir);
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  cleanup.push(() => inventoryStore.close());
  const tagged: { tenant: string; type: MetricType; id: string; tags: Tags }[] = [];
  const store = {
    fail: false,
    async updateTags(tenant: string, type: MetricType, id: string, tags: Tags) {
      if (this.fail) throw new Error("disk full");
      tagged.push({ tenant, type, id, tags });
    },
  };
  const acks: { topic: string; ack: InventoryAck }[] = [];
  const counters = registerIngestCounters(new Telemetry());
  const h = new MessageHandler({
    store: store as unknown as MetricsStore,
    inventory: { store: inventoryStore, events: new InventoryEvents() },
    bus: new PointsBus(),
    publish: async (topic, payload) => {
      acks.push({ topic, ack: decodeInventoryAck(dec, payload) });
    },
    prefix: "svc",
    enc,
    dec,
    counters,
    clockWindow: DEFAULT_CLOCK_WINDOW,
    log: createLogger("silent"),
  });
  return { h, store, tagged, acks, counters, inventoryStore };
}

describe.each(backends)("agent inventory at the collector, on $name", ({ open }) => {
  it("applies the structure at the topic's feed, records metric definitions, then acks the digest", async () => {
    const s = setup(open);
    await s.h.handle("svc/t1/f1/inventory", encodeInventory(enc, { digest: "d1", structure: structure() }));
    expect(s.acks).toEqual([{ topic: "svc/t1/f1/ack", ack: { digest: "d1" } }]);
    const feed = await s.inventoryStore.transaction(async (tx) => ({ result: await tx.getEntity("t1", CanonicalPath.parse("/t;t1/f;f1/r;host/m;f1%3Aload1")), events: [] }));
    expect(feed.result?.id).toBe("f1:load1");
    expect(s.tagged).toEqual([
      { tenant: "t1", type: "gauge", id: "f1:load1", tags: { feed: "f1", host: "h" } },
      { tenant: "t1", type: "counter", id: "f1:forks", tags: {} },
    ]);
  });

  it("refuses an invalid structure for good, with the reason, and goes on", async () => {
    const s = setup(open);
    const bad = structure();
    (bad.children.metricType[0]!.data as Record<string, unknown>).unit = "FURLONGS";
    await s.h.handle("svc/t1/f1/inventory", encodeInventory(enc, { digest: "bad", structure: bad }));
    expect(s.acks[0]?.ack.digest).toBe("bad");
    expect(s.acks[0]?.ack.error).toContain("unit");
    expect(s.counters.rejected.value).toBe(1);
    await s.h.handle("svc/t1/f1/inventory", encodeInventory(enc, { digest: "rt", structure: { type: "resourceType", data: { id: "x" } } }));
    expect(s.acks[1]?.ack.error).toMatch(/feed/i);
    await s.h.handle("svc/t1/f1/inventory", encodeInventory(enc, { digest: "good", structure: structure() }));
    expect(s.acks[2]?.ack).toEqual({ digest: "good" });
  });

  it("does not ack when storing fails, so the agent resends", async () => {
    const s = setup(open);
    s.store.fail = true;
    await s.h.handle("svc/t1/f1/inventory", encodeInventory(enc, { digest: "d1", structure: structure() }));
    expect(s.acks).toEqual([]);
    expect(s.counters.storeFailures.value).toBe(1);
  });
});

describe("agent inventory while PostgreSQL cannot be reached", () => {
  it("is not acked (the agent resends it), and is applied and acked once the server is back", async () => {
    const proxy = await new PostgresProxy().start();
    const sql = new SQL(pg.urlVia(proxy.port), { max: 2, connectionTimeout: 2 });
    cleanup.push(
      () => proxy.close(),
      () => sql.close({ timeout: 1 }),
    );
    const s = setup(() => openPostgresInventoryStore(sql));
    await proxy.cut();
    await s.h.handle("svc/t1/f1/inventory", encodeInventory(enc, { digest: "d1", structure: structure() }));
    expect(s.acks).toEqual([]);
    await proxy.restore();
    await s.h.handle("svc/t1/f1/inventory", encodeInventory(enc, { digest: "d1", structure: structure() }));
    expect(s.acks).toEqual([{ topic: "svc/t1/f1/ack", ack: { digest: "d1" } }]);
    const metric = await s.inventoryStore.read((r) => r.getEntity("t1", CanonicalPath.parse("/t;t1/f;f1/r;host/m;f1%3Aload1")));
    expect(metric?.id).toBe("f1:load1");
  });
});

describe("agent inventory PostgreSQL cannot hold", () => {
  it("is refused for good (acked with the reason), not retried forever", async () => {
    const s = setup(backends[1]!.open);
    const bad = structure();
    (bad.children.resource[0]!.data as Record<string, unknown>).name = "host\u0000name";
    await s.h.handle("svc/t1/f1/inventory", encodeInventory(enc, { digest: "nul", structure: bad }));
    expect(s.acks).toHaveLength(1);
    expect(s.acks[0]?.ack.digest).toBe("nul");
    expect(s.acks[0]?.ack.error).toMatch(/NUL character/);
  });
});

describe("agent inventory messages", () => {

  it("an undecodable inventory message is rejected and counted", async () => {
    const s = setup();
    await s.h.handle("svc/t1/f1/inventory", new Uint8Array([0xff, 0x00]));
    await s.h.handle("svc/t1/f1/inventory", enc.encode({ v: 1, kind: "inventory", digest: "" }));
    expect(s.acks).toEqual([]);
    expect(s.counters.rejected.value).toBe(2);
  });

  it("metric definitions: data type from the metric type, string properties as tags", () => {
    const defs = metricDefinitionsOf(parseStructure(structure({ a: "x", n: 1, nested: { b: "y" } })), CanonicalPath.parse("/t;t1/f;f1"));
    expect(defs).toEqual([
      { type: "gauge", id: "f1:load1", tags: { a: "x" } },
      { type: "counter", id: "f1:forks", tags: {} },
    ]);
  });
});
