import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { body, startTestCollector, type TestCollector } from "../helpers/collector.ts";
import { type AnyJson, expectStatus, type InventoryClient, inventoryClient } from "./support.ts";

let col: TestCollector;
let api: InventoryClient;

/** A websocket on /ws/events whose frames are read one at a time, in order. */
interface Listener {
  next(): Promise<string>;
  nextJson(): Promise<AnyJson>;
  closed: Promise<void>;
  close(): void;
}

async function listen(query: string): Promise<Listener> {
  const ws = new WebSocket(`${col.url.replace("http", "ws")}/svc/inventory/ws/events?${query}`);
  const frames: string[] = [];
  const waiting: ((s: string) => void)[] = [];
  ws.onmessage = (e) => {
    const text = String(e.data);
    const w = waiting.shift();
    if (w) w(text);
    else frames.push(text);
  };
  const closed = new Promise<void>((resolve) => {
    ws.onclose = () => resolve();
  });
  await new Promise<void>((resolve, reject) => {
    ws.onopen = () => resolve();
    ws.onerror = (e) => reject(e);
  });
  const next = () => {
    const f = frames.shift();
    return f !== undefined ? Promise.resolve(f) : new Promise<string>((resolve) => waiting.push(resolve));
  };
  return { next, nextJson: async () => JSON.parse(await next()), closed, close: () => ws.close() };
}

beforeAll(async () => {
  col = await startTestCollector();
  api = inventoryClient(col, "ev");
  await expectStatus(await api.post("/entity/resourceType", { id: "T" }), 201);
  await expectStatus(await api.post("/entity/feed", { id: "f" }), 201);
});
afterAll(async () => {
  await col.close();
});

describe("/ws/events", () => {
  it("sends created resources by default, one JSON frame each, for the tenant asked only", async () => {
    const l = await listen("tenantId=ev");
    const other = inventoryClient(col, "not-ev");
    await expectStatus(await other.post("/entity/resourceType", { id: "T" }), 201);
    await expectStatus(await other.post("/entity/environment", { id: "e" }), 201);
    await expectStatus(await other.post("/entity/e;e/resource", { id: "theirs", resourceTypePath: "/rt;T" }), 201);
    await expectStatus(await api.post("/entity/environment", { id: "not-a-resource" }), 201);
    await expectStatus(await api.post("/entity/f;f/resource", { id: "r1", resourceTypePath: "/rt;T" }), 201);
    await expectStatus(await api.post("/entity/f;f/resource", { id: "r2", resourceTypePath: "/rt;T" }), 201);
    const first = await l.nextJson();
    expect(first).toMatchObject({ path: "/t;ev/f;f/r;r1", id: "r1", type: { id: "T" } });
    expect(first.identityHash).toMatch(/^[0-9a-f]+$/);
    expect((await l.nextJson()).path).toBe("/t;ev/f;f/r;r2");
    l.close();
  });

  it("filters by type and action: updated, deleted, relationships", async () => {
    const updated = await listen("tenantId=ev&type=resource&action=updated");
    const deleted = await listen("tenantId=ev&type=r&action=DELETED");
    const relCreated = await listen("tenantId=ev&type=relationship&action=created");
    await expectStatus(await api.post("/entity/f;f/resource", { id: "r3", resourceTypePath: "/rt;T" }), 201);
    await expectStatus(await api.put("/entity/f;f/r;r3", { properties: { a: 1 } }), 204);
    const u = await updated.nextJson();
    expect(u.originalEntity.path).toBe("/t;ev/f;f/r;r3");
    expect(u.originalEntity.properties).toBeUndefined();
    expect(u.update).toEqual({ properties: { a: 1 } });

    // The first relationships created with r3 are its contains and defines.
    const contains = await relCreated.nextJson();
    expect(contains).toMatchObject({ name: "contains", source: "/t;ev/f;f", target: "/t;ev/f;f/r;r3" });
    expect((await relCreated.nextJson()).name).toBe("defines");
    await expectStatus(await api.post("/entity/f;f/r;r3/relationship", { name: "likes", otherEnd: "../r;r1", direction: "outgoing" }), 201);
    expect(await relCreated.nextJson()).toMatchObject({ name: "likes", source: "/t;ev/f;f/r;r3", target: "/t;ev/f;f/r;r1" });

    await expectStatus(await api.del("/entity/f;f/r;r3"), 204);
    expect((await deleted.nextJson()).path).toBe("/t;ev/f;f/r;r3");
    for (const l of [updated, deleted, relCreated]) l.close();
  });

  it("sends identity_hash_changed when what an entity contains changes its identity", async () => {
    const changed = await listen("tenantId=ev&type=feed&action=identity_hash_changed");
    const before = await body(await api.get("/entity/f;f"));
    await expectStatus(await api.post("/entity/f;f/resource", { id: "r4", resourceTypePath: "/rt;T" }), 201);
    const e = await changed.nextJson();
    const after = await body(await api.get("/entity/f;f"));
    expect(e.path).toBe("/t;ev/f;f");
    expect(e.identityHash).toBe(after.identityHash);
    expect(e.identityHash).not.toBe(before.identityHash);
    changed.close();
  });

  it("explains bad parameters in a text frame and closes", async () => {
    for (const [query, message] of [
      ["type=resource", "Provide the tenantId query parameter."],
      ["tenantId=ev&action=exploded", "Unknown action"],
      ["tenantId=ev&type=unicorn", "Unknown type"],
    ]) {
      const l = await listen(query!);
      expect(await l.next()).toContain(message);
      await l.closed;
    }
  });
});
