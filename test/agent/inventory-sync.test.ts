import { describe, expect, test } from "vitest";
import { InventorySync } from "../../agent/inventory/inventory-sync.ts";
import type { DigestedStructure } from "../../agent/inventory/structure-digest.ts";
import { createLogger } from "../../src/log/logger.ts";

function setup() {
  let clock = 0;
  const sent: string[] = [];
  let fail = false;
  const sync = new InventorySync({
    send: async (s) => {
      if (fail) throw new Error("not connected");
      sent.push(s.digest);
    },
    retryMs: 1000,
    log: createLogger("silent"),
    now: () => clock,
  });
  const s = (digest: string): DigestedStructure => ({ digest, json: { type: "feed", data: { id: "f" } } });
  const settle = () => new Promise((r) => setTimeout(r, 0));
  return { sync, sent, s, settle, advance: (ms: number) => (clock += ms), setFail: (f: boolean) => (fail = f) };
}

describe("inventory sync (agent side)", () => {
  test("waits for the link, sends once, and never resends an unchanged acknowledged structure", async () => {
    const t = setup();
    t.sync.offer(t.s("a"));
    expect(t.sent).toEqual([]);
    t.sync.linkReady();
    t.sync.offer(t.s("a"));
    t.sync.offer(t.s("a"));
    expect(t.sent).toEqual(["a"]);
    t.sync.onAck({ digest: "a" });
    t.advance(10_000);
    t.sync.tick();
    t.sync.offer(t.s("a"));
    t.sync.linkReady();
    expect(t.sent).toEqual(["a"]);
    expect(t.sync.pending).toBe(false);
  });

  test("a change is sent; an unacknowledged one again after the retry time or a reconnect", async () => {
    const t = setup();
    t.sync.linkReady();
    t.sync.offer(t.s("a"));
    t.sync.onAck({ digest: "a" });
    t.sync.offer(t.s("b"));
    expect(t.sent).toEqual(["a", "b"]);
    t.advance(999);
    t.sync.tick();
    expect(t.sent).toEqual(["a", "b"]);
    t.advance(1);
    t.sync.tick();
    expect(t.sent).toEqual(["a", "b", "b"]);
    t.sync.linkDown();
    t.sync.linkReady();
    expect(t.sent).toEqual(["a", "b", "b", "b"]);
    // A late ack of an older structure does not count for the new one.
    t.sync.onAck({ digest: "a" });
    expect(t.sync.pending).toBe(true);
    t.sync.onAck({ digest: "b" });
    expect(t.sync.pending).toBe(false);
  });

  test("going back to the acknowledged structure sends nothing", () => {
    const t = setup();
    t.sync.linkReady();
    t.sync.offer(t.s("a"));
    t.sync.onAck({ digest: "a" });
    t.setFail(true);
    t.sync.offer(t.s("b"));
    t.sync.offer(t.s("a"));
    expect(t.sync.pending).toBe(false);
  });

  test("a failed send is retried at the next tick; a refused structure is not resent until it changes", async () => {
    const t = setup();
    t.sync.linkReady();
    t.setFail(true);
    t.sync.offer(t.s("a"));
    await t.settle();
    t.setFail(false);
    t.sync.tick();
    expect(t.sent).toEqual(["a"]);
    t.sync.onAck({ digest: "a", error: "bad structure" });
    t.advance(5000);
    t.sync.tick();
    t.sync.linkReady();
    expect(t.sent).toEqual(["a"]);
    t.sync.offer(t.s("c"));
    expect(t.sent).toEqual(["a", "c"]);
  });
});
