import { describe, expect, it } from "vitest";
import { PointBuffer } from "../../../agent/buffer/point-buffer.ts";
import { FiredQueue } from "../../../agent/triggers/fired-queue.ts";
import type { Event } from "../../../src/alerts/model.ts";
import { createLogger } from "../../../src/log/logger.ts";
import { createDecoder, createEncoder } from "../../../src/protocol/cbor.ts";
import { openDatabase } from "../../../src/sqlite/open.ts";
import { SmallDisk } from "../../helpers/full-disk.ts";
import { waitFor } from "../../helpers/ports.ts";
import { join } from "node:path";

const event = (i: number, text = "fired"): Event => ({ eventType: "EVENT", tenantId: "t", id: `e${i}`, ctime: i, category: "C", text });

describe("fired alerts and events on a full disk", () => {
  it("count the groups of a write under way as held until it succeeds, and again when it fails", async () => {
    const full = Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" });
    const writes: { resolve: () => void; reject: (e: unknown) => void }[] = [];
    const queue = new FiredQueue(() => new Promise<void>((resolve, reject) => writes.push({ resolve, reject })), createLogger("silent"), 20);
    try {
      queue.push([event(1)]);
      // The write is under way: nothing is in the buffer yet.
      expect(writes.length).toBe(1);
      expect(queue.held).toBe(1);
      queue.push([event(2)]);
      expect(queue.held).toBe(2);
      writes[0]!.reject(full);
      await waitFor("the retry under way", () => (writes.length === 2 ? true : undefined), 2000);
      expect(queue.held).toBe(2);
      writes[1]!.resolve();
      await waitFor("everything written", () => (queue.held === 0 ? true : undefined), 2000);
    } finally {
      queue.close();
    }
  });

  it("wait in memory, in order, while the events buffer refuses them, and are buffered once space returns", async () => {
    const disk = new SmallDisk(8);
    const enc = createEncoder();
    const buffer = new PointBuffer(openDatabase(join(disk.dir, "events.db"), { synchronous: "NORMAL" }), { tenant: "t", feed: "f" }, { maxBytes: 1e9, maxAgeMs: 3_600_000, chunkPoints: 500 }, enc, {}, Date.now, 1);
    const queue = new FiredQueue((groups) => buffer.appendChunks(groups.map(({ items }) => ({ body: enc.encode(items), points: items.length }))), createLogger("silent"), 50);
    try {
      queue.push([event(0)]);
      await waitFor("first event buffered", () => (buffer.depth.points === 1 ? true : undefined));
      disk.fill();
      // Large events use up what room the database files still had; then nothing more fits.
      const big = "x".repeat(64 * 1024);
      for (let i = 1; i <= 40; i++) queue.push([event(i, big)]);
      await waitFor("the queue holding what the disk refused", () => (queue.held > 0 ? true : undefined), 5000);
      const stored = buffer.depth.points;
      for (let i = 41; i <= 45; i++) queue.push([event(i)]);
      await Bun.sleep(200);
      expect(queue.held).toBeGreaterThan(0);
      disk.free();
      await waitFor("everything buffered", () => (buffer.depth.points === 46 ? true : undefined), 5000);
      expect(stored).toBeLessThan(46);
      // In the order it fired.
      const dec = createDecoder();
      const ids: string[] = [];
      for (let lo = 0, s = buffer.read(lo, Number.MAX_SAFE_INTEGER, 1000); s; s = buffer.read(lo, Number.MAX_SAFE_INTEGER, 1000)) {
        for (const body of s.bodies) for (const e of dec.decode(body) as Event[]) ids.push(e.id);
        lo = s.hi;
      }
      expect(ids).toEqual(Array.from({ length: 46 }, (_, i) => `e${i}`));
    } finally {
      queue.close();
      buffer.close();
      disk.dispose();
    }
  });
});
