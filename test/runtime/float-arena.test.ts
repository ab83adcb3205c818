/** FloatArena's shrink (src/runtime/float-arena.ts): only the view handed out last gives room back. */
import { describe, expect, it } from "vitest";
import { FloatArena } from "../../src/runtime/float-arena.ts";

describe("FloatArena.shrink", () => {
  it("hands the rest of the last view out again, and nothing of any other", () => {
    const a = new FloatArena(false, 64);
    const first = a.take(10).fill(1);
    const last = a.take(20).fill(2);
    a.shrink(first, 2);
    // first was not the last view: the next one starts after `last`.
    const next = a.take(4);
    expect(next.byteOffset).toBe(30 * 8);
    a.shrink(next, 1);
    const after = a.take(3);
    expect(after.byteOffset).toBe(31 * 8);
    expect(Array.from(first)).toEqual(Array(10).fill(1));
    expect(Array.from(last)).toEqual(Array(20).fill(2));
  });

  it("leaves a spilled view and a later slab alone", () => {
    const a = new FloatArena(false, 16);
    a.take(10);
    const spilled = a.take(100);
    a.shrink(spilled, 0);
    expect(a.take(6).byteOffset).toBe(10 * 8);
    // After a reset the slab grew; a view of the old slab gives nothing back to the new one.
    a.reset();
    expect(a.capacity).toBeGreaterThanOrEqual(116);
    const v = a.take(50);
    a.shrink(spilled, 0);
    expect(a.take(1).byteOffset).toBe(50 * 8);
    a.shrink(v, 50);
    expect(a.take(1).byteOffset).toBe(51 * 8);
  });

  it("zeroes what it hands out unless asked not to", () => {
    const zeroing = new FloatArena();
    zeroing.take(8).fill(5);
    zeroing.reset();
    expect(Array.from(zeroing.take(8))).toEqual(Array(8).fill(0));
    const reading = new FloatArena(false);
    reading.take(8).fill(5);
    reading.reset();
    expect(Array.from(reading.take(8))).toEqual(Array(8).fill(5));
  });
});
