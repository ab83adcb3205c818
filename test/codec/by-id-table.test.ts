/**
 * ByIdTable (src/codec/by-id-table.ts): finds what a Map keyed by the same ids finds, through
 * its growth and a clear, and holds fewer bytes a series than a Map did.
 */
import { heapStats } from "bun:jsc";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ByIdTable } from "../../src/codec/by-id-table.ts";

describe("ByIdTable", () => {
  it("finds every object added by its id, and nothing else, as a Map does", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 12 }), { maxLength: 3000 }), fc.array(fc.string({ maxLength: 12 }), { maxLength: 50 }), (ids, probes) => {
        const table = new ByIdTable<{ id: string }>();
        const map = new Map<string, { id: string }>();
        for (const id of ids) {
          if (table.get(id) !== map.get(id)) return false;
          if (map.has(id)) continue;
          const o = { id };
          table.add(o);
          map.set(id, o);
        }
        expect(table.size).toBe(map.size);
        for (const id of [...ids, ...probes]) expect(table.get(id)).toBe(map.get(id));
        return true;
      }),
      { numRuns: 200 },
    );
  });

  it("adds and deletes as a Map does, through growth and runs of colliding slots", () => {
    // Few distinct short ids over a small table: long probe runs, deletes within and across them.
    const op = fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 400 }));
    fc.assert(
      fc.property(fc.array(op, { maxLength: 4000 }), (ops) => {
        const table = new ByIdTable<{ id: string }>();
        const map = new Map<string, { id: string }>();
        for (const [add, k] of ops) {
          const id = `s${k}`;
          if (add) {
            if (map.has(id)) continue;
            const o = { id };
            table.add(o);
            map.set(id, o);
          } else expect(table.delete(id)).toBe(map.delete(id));
        }
        expect(table.size).toBe(map.size);
        for (let k = 0; k <= 400; k++) expect(table.get(`s${k}`)).toBe(map.get(`s${k}`));
      }),
      { numRuns: 100 },
    );
  });

  it("holds 50,000 series' ids in less than half a Map's bytes, and starts empty again when cleared", () => {
    const ids = Array.from({ length: 50_000 }, (_, i) => `bench_value{instance="127.0.0.1:${9000 + (i % 10)}",series="s${i}"}`);
    const objects = ids.map((id) => ({ id }));
    const table = new ByIdTable<{ id: string }>();
    for (const o of objects) table.add(o);
    // The Map's cells, measured; the table's typed arrays and reference array, counted (the
    // engine reports freed array buffers late, so a measure of it would count its growth too).
    Bun.gc(true);
    const before = heapStats().heapSize;
    const map = new Map<string, { id: string }>();
    for (const o of objects) map.set(o.id, o);
    Bun.gc(true);
    const mapBytes = heapStats().heapSize - before;
    expect(table.byteLength).toBeLessThan(mapBytes / 2);
    expect(table.size).toBe(50_000);
    for (let i = 0; i < ids.length; i += 97) expect(table.get(ids[i]!)).toBe(objects[i]);
    expect(table.get('bench_value{series="s50000"}')).toBeUndefined();
    table.clear();
    expect(table.size).toBe(0);
    expect(table.get(ids[0]!)).toBeUndefined();
    expect(map.size).toBe(50_000);
  });
});
