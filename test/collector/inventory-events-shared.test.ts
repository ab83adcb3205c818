import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestCollector, type TestCollector } from "../helpers/collector.ts";
import { waitFor } from "../helpers/ports.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/postgres.ts";
import { expectStatus, inventoryClient } from "../inventory/support.ts";

/**
 * Two collectors on one PostgreSQL database: a websocket client of /ws/events on either one
 * receives the inventory changes made through both, each once; changes to a tenant nobody
 * follows are not recorded for the other collectors.
 */
let db: TestDatabase;
let a: TestCollector;
let b: TestCollector;
const sockets: WebSocket[] = [];
beforeAll(async () => {
  db = await createTestDatabase();
  a = await startTestCollector({ "database-url": db.url, "node-name": "inv-a" });
  b = await startTestCollector({ "database-url": db.url, "node-name": "inv-b" });
});
afterAll(async () => {
  for (const s of sockets) s.close();
  await a?.close();
  await b?.close();
  await db?.drop();
});

/** Every frame a websocket on /ws/events receives, parsed. */
async function listen(col: TestCollector, query: string): Promise<{ id: string }[]> {
  const ws = new WebSocket(`${col.url.replace("http", "ws")}/svc/inventory/ws/events?${query}`);
  sockets.push(ws);
  const frames: { id: string }[] = [];
  ws.onmessage = (e) => frames.push(JSON.parse(String(e.data)));
  await new Promise<void>((resolve, reject) => {
    ws.onopen = () => resolve();
    ws.onerror = (e) => reject(e);
  });
  return frames;
}

const ids = (frames: { id: string }[], id: string) => frames.filter((f) => f.id === id).length;

describe("inventory websocket events with collectors sharing a database", () => {
  it("a change through either collector reaches the listeners of both, once", async () => {
    const viaA = inventoryClient(a, "ws");
    const viaB = inventoryClient(b, "ws");
    await expectStatus(await viaA.post("/entity/resourceType", { id: "T" }), 201);
    await expectStatus(await viaA.post("/entity/feed", { id: "f" }), 201);
    const atA = await listen(a, "tenantId=ws");
    const atB = await listen(b, "tenantId=ws");
    // A listener is known to the other collector within a second or two: until then, changes
    // through it are not sent over. Create through each until the other's listener hears one.
    let n = 0;
    const warm = async (via: typeof viaA, heard: { id: string }[]) => {
      await waitFor("the other collector's listener known", async () => {
        await expectStatus(await via.post("/entity/f;f/resource", { id: `warm-${n++}`, resourceTypePath: "/rt;T" }), 201);
        return heard.some((f) => f.id.startsWith("warm-")) ? true : undefined;
      }, 15_000, 250);
    };
    await warm(viaA, atB);
    await warm(viaB, atA);

    await expectStatus(await viaA.post("/entity/f;f/resource", { id: "made-on-a", resourceTypePath: "/rt;T" }), 201);
    await expectStatus(await viaB.post("/entity/f;f/resource", { id: "made-on-b", resourceTypePath: "/rt;T" }), 201);
    for (const frames of [atA, atB]) {
      await waitFor("both changes", () => (ids(frames, "made-on-a") > 0 && ids(frames, "made-on-b") > 0 ? true : undefined), 10_000, 50);
    }
    await Bun.sleep(1500); // a second copy (relayed back, or twice) would show by now
    for (const frames of [atA, atB]) {
      expect(ids(frames, "made-on-a")).toBe(1);
      expect(ids(frames, "made-on-b")).toBe(1);
      // Each warm-up resource once as well.
      for (let i = 0; i < n; i++) expect(ids(frames, `warm-${i}`)).toBeLessThanOrEqual(1);
    }
    const entity = atB.find((f) => f.id === "made-on-a") as unknown as { path: string };
    expect(entity.path).toBe("/t;ws/f;f/r;made-on-a");
  });

  it("records nothing for the other collectors about a tenant no listener follows", async () => {
    const quiet = inventoryClient(a, "quiet");
    await expectStatus(await quiet.post("/entity/resourceType", { id: "T" }), 201);
    await expectStatus(await quiet.post("/entity/feed", { id: "f" }), 201);
    for (let i = 0; i < 20; i++) await expectStatus(await quiet.post("/entity/f;f/resource", { id: `r${i}`, resourceTypePath: "/rt;T" }), 201);
    const [{ n }] = (await db.sql.unsafe("SELECT count(*)::int AS n FROM outpost_inventory_changes WHERE tenant = 'quiet'")) as [{ n: number }];
    expect(n).toBe(0);
    const [{ followed }] = (await db.sql.unsafe("SELECT count(*)::int AS followed FROM outpost_inventory_changes WHERE tenant = 'ws'")) as [{ followed: number }];
    expect(followed).toBeGreaterThan(0);
  });
});
