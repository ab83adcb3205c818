/**
 * The ingest log read back a piece at a time (collector/store/metrics/sqlite/log-records.ts,
 * issue 28), and its bodies decoded into reused columns (log-body.ts LogBodyScratch): the same
 * records and the same columns as reading the file whole and decoding with cbor-x, whatever the
 * piece size, records straddling pieces or larger than one, torn tails and damaged records.
 */
import { closeSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { decodeLogBody, encodeLogBody, type LogBody, LogBodyScratch, LogScratch } from "../../../collector/store/metrics/log-body.ts";
import { IngestLog } from "../../../collector/store/metrics/sqlite/ingest-log.ts";
import { HEADER, type LogRecord, scanRecords, segmentRecords } from "../../../collector/store/metrics/sqlite/log-records.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const HOOKS = { durable: () => Promise.resolve(), closeFd: closeSync };

/** A segment file holding bodies of the given sizes (records 1…n), and its path. */
function segmentOf(sizes: number[]): string {
  const dir = mkdtempSync(join(tmpdir(), "outpost-log-records-"));
  dirs.push(dir);
  const log = new IngestLog(dir, "NORMAL", HOOKS);
  [...log.open(1)];
  log.appendGroup(sizes.length, (k) => Uint8Array.from({ length: sizes[k]! }, (_, i) => (k * 7 + i) & 0xff));
  log.close();
  return join(dir, "metrics-log", "0000000000000001.log");
}

/** The records as copies (each body a view valid until the next record), and the damage told. */
const collect = (read: (damaged: () => void) => Iterable<LogRecord>) => {
  let damaged = 0;
  const records: { seq: number; arrived: number; body: number[] }[] = [];
  for (const r of read(() => damaged++)) records.push({ seq: r.seq, arrived: r.arrived, body: Array.from(r.body) });
  return { records, damaged };
};
const read = (path: string, readBytes?: number) => collect((d) => segmentRecords(path, d, readBytes));
/** The file read whole and scanned, as the log read it before. */
const readWhole = (path: string) => collect((d) => scanRecords(readFileSync(path), 0, d));

describe("reading a segment a piece at a time", () => {
  it("gives the records reading it whole gives, for any piece size, with damage and torn tails, before the zeros written ahead or without them", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 300 }), { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 1, max: 700 }),
        fc.option(fc.nat(), { nil: undefined }),
        fc.option(fc.nat(), { nil: undefined }),
        fc.boolean(),
        (sizes, readBytes, flip, cut, zerosKept) => {
          const path = segmentOf(sizes);
          const bytes = readFileSync(path);
          // The records, then the zeros the log wrote ahead of them.
          const used = sizes.reduce((a, n) => a + HEADER + n, 0);
          expect(bytes.length).toBeGreaterThan(used);
          expect(bytes.subarray(used).every((b) => b === 0)).toBe(true);
          if (flip !== undefined) bytes[flip % used]! ^= 0x10;
          // Torn at `cut`: what follows never reached the disk (zeros where they were written ahead).
          const at = cut !== undefined ? cut % (used + 1) : used;
          const damagedBytes = zerosKept ? bytes.fill(0, at, used) : bytes.subarray(0, at);
          writeFileSync(path, damagedBytes);
          // In small pieces, in one, and the file read whole: the same records.
          const whole = readWhole(path);
          expect(read(path, readBytes)).toEqual(whole);
          expect(read(path, 1 << 30)).toEqual(whole);
          // Undamaged, every record is there, in order, with its body.
          if (flip === undefined && cut === undefined) {
            expect(whole.records.map((r) => r.seq)).toEqual(sizes.map((_, k) => k + 1));
            expect(whole.records.map((r) => r.body.length)).toEqual(sizes);
            expect(whole.damaged).toBe(0);
          }
          // A cut file keeps the records before the cut.
          if (flip === undefined && cut !== undefined) {
            let end = 0;
            const kept = sizes.filter((n) => (end += HEADER + n) <= at).length;
            expect(whole.records.map((r) => r.seq)).toEqual(sizes.slice(0, kept).map((_, k) => k + 1));
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

const numericBody = fc.integer({ min: 0, max: 40 }).chain((n) =>
  fc.tuple(
    fc.array(fc.integer({ min: 0, max: 2 ** 32 - 1 }), { minLength: n, maxLength: n }),
    fc.array(fc.integer({ min: 0, max: 5 }), { minLength: n, maxLength: n }),
  ).chain(([sids, counts]) => {
    const points = counts.reduce((a, b) => a + b, 0);
    return fc.tuple(
      fc.constant(sids),
      fc.constant(counts),
      fc.array(fc.integer({ min: 0, max: 2 ** 42 }), { minLength: points, maxLength: points }),
      fc.array(fc.oneof(fc.double(), fc.constant(Number.NaN)), { minLength: points, maxLength: points }),
    );
  }),
);

const asArrays = (b: LogBody) => ({
  sids: Array.from(b.sids),
  counts: Array.from(b.counts),
  ts: Array.from(b.ts),
  nums: Array.from(b.nums, (v) => (Number.isNaN(v) ? "NaN" : Object.is(v, -0) ? "-0" : v)),
  strs: b.strs,
  tags: b.tags,
  strParts: b.strParts && Array.from(b.strParts),
});

describe("log bodies decoded into reused columns", () => {
  it("equal cbor-x's decoding, body after body through one scratch", () => {
    const scratch = new LogBodyScratch();
    const out = new LogScratch();
    fc.assert(
      fc.property(numericBody, ([sids, counts, ts, nums]) => {
        const body: LogBody = { sids: Uint32Array.from(sids), counts: Uint32Array.from(counts), ts: Float64Array.from(ts), nums: Float64Array.from(nums), strs: [], tags: [], strParts: new Uint8Array(sids.length) };
        // The store's own bytes (written by hand), shifted by 0–7 bytes as a record's body may be.
        const encoded = encodeLogBody(body, out);
        const shift = sids.length % 8;
        const at = new Uint8Array(encoded.length + shift);
        at.set(encoded, shift);
        const bytes = at.subarray(shift);
        expect(scratch.decode(bytes)).toBeDefined();
        expect(asArrays(decodeLogBody(bytes, scratch))).toEqual(asArrays(decodeLogBody(bytes)));
        expect(asArrays(decodeLogBody(bytes, scratch))).toEqual(asArrays(body));
      }),
      { numRuns: 500 },
    );
  });

  it("leaves a body with strings or point tags, or not whole, to cbor-x", () => {
    const scratch = new LogBodyScratch();
    const withStrings: LogBody = { sids: Uint32Array.of(1), counts: Uint32Array.of(1), ts: Float64Array.of(5), nums: Float64Array.of(Number.NaN), strs: ["up"], tags: [], strParts: Uint8Array.of(1) };
    const withTags: LogBody = { sids: Uint32Array.of(1), counts: Uint32Array.of(1), ts: Float64Array.of(5), nums: Float64Array.of(2), strs: [], tags: [[0, { a: "b" }]], strParts: Uint8Array.of(0) };
    for (const b of [withStrings, withTags]) {
      const bytes = encodeLogBody(b, new LogScratch());
      expect(scratch.decode(bytes)).toBeUndefined();
      expect(asArrays(decodeLogBody(bytes, scratch))).toEqual(asArrays(b));
    }
    const plain: LogBody = { sids: Uint32Array.of(1, 2), counts: Uint32Array.of(1, 1), ts: Float64Array.of(5, 6), nums: Float64Array.of(1, 2), strs: [], tags: [], strParts: new Uint8Array(2) };
    const bytes = encodeLogBody(plain, new LogScratch()).slice();
    // Cut short anywhere, or with bytes after it: not taken (cbor-x then says what is wrong).
    for (let n = 0; n < bytes.length; n++) expect(scratch.decode(bytes.subarray(0, n))).toBeUndefined();
    const longer = new Uint8Array(bytes.length + 1);
    longer.set(bytes);
    expect(scratch.decode(longer)).toBeUndefined();
  });
});
