/**
 * The slices handed to the PromQL worker (collector/metrics/promql-wire.ts) arrive as they
 * were packed: blocks and columns copied into one buffer, and the heads' columns the store's
 * read copied already (SeriesParts.own) moved as they are, not copied a second time.
 */
import { expect, test } from "vitest";
import { packSlice, type SliceSeries, transferables, unpackSlice } from "../../../collector/metrics/promql-wire.ts";

test("blocks, borrowed columns and own columns survive the transfer; own buffers move", () => {
  const ownBuf = new ArrayBuffer(3 * 16);
  const ownTs = new Float64Array(ownBuf, 0, 3);
  const ownNums = new Float64Array(ownBuf, 24, 3);
  ownTs.set([7, 8, 9]);
  ownNums.set([0.5, Number.NaN, -0]);
  const borrowed = { ts: new Float64Array([1, 2]), nums: new Float64Array([10, 20]) };
  const series: SliceSeries[] = [
    { labels: [["a", "1"]], parts: { start: 0, end: 100, pieces: [{ block: new Uint8Array([1, 2, 3, 4, 5]), n: 2 }, borrowed, { ts: ownTs, nums: ownNums, own: true }] } },
    { labels: [["a", "2"]], parts: { start: 5, end: 50, pieces: [{ block: new Uint8Array([9]), n: 1 }] } },
  ];
  const expected = structuredClone(series.map((s) => ({ labels: s.labels, parts: { ...s.parts, pieces: s.parts.pieces.map((p) => ("block" in p ? { block: Array.from(p.block), n: p.n } : { ts: Array.from(p.ts), nums: Array.from(p.nums) })) } })));
  const packed = packSlice(series);
  expect(packed.own).toEqual([ownBuf]);
  const arrived = structuredClone(packed, { transfer: transferables(packed) });
  // Moved, not copied: the sender's buffer is detached; borrowed columns stay the sender's.
  expect(ownBuf.byteLength).toBe(0);
  expect(Array.from(borrowed.ts)).toEqual([1, 2]);
  const got = unpackSlice(arrived).map((s) => ({ labels: s.labels, parts: { ...s.parts, pieces: s.parts.pieces.map((p) => ("block" in p ? { block: Array.from(p.block), n: p.n } : { ts: Array.from(p.ts), nums: Array.from(p.nums) })) } }));
  expect(got).toEqual(expected);
  expect(Object.is(got[0]!.parts.pieces[2]!.nums![2], -0)).toBe(true);
});
