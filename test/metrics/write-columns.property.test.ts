import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildLogBody, columnsLogBody, decodeLogBody, encodeLogBody, LogScratch } from "../../collector/store/metrics/log-body.ts";
import { normalizedMetricsBody } from "../../src/metrics/normalized.ts";
import { type ColumnType, columnsToWrites, parseColumns } from "../../src/metrics/write-columns.ts";
import { anyPoint, validValue } from "../helpers/point-arbitraries.ts";

const columnType = fc.constantFrom<ColumnType>("gauge", "counter");
/** Normalized points: finite values, timestamps that repeat, tags now and then (empty ones too). */
const normalizedPoints = (t: ColumnType) =>
  fc.array(
    fc.record(
      {
        timestamp: fc.oneof(fc.integer({ min: 0, max: 2 ** 42 }), fc.constantFrom(1_000, 2_000)),
        value: validValue[t] as fc.Arbitrary<number>,
        tags: fc.dictionary(fc.string({ maxLength: 3 }), fc.string({ maxLength: 3 }), { maxKeys: 2 }),
      },
      { requiredKeys: ["timestamp", "value"] },
    ),
    { maxLength: 6 },
  );
const normalizedMetric = (t: ColumnType) =>
  fc.record({ id: fc.constantFrom("m", "a.b", "cpu:0", "s1", "s2"), data: normalizedPoints(t), dataPoints: normalizedPoints(t) }, { requiredKeys: ["id"] });
/** Mostly normalized bodies; some with points the schemas convert or refuse, some not write bodies at all. */
const body = columnType.chain((t) =>
  fc.tuple(
    fc.constant(t),
    fc.oneof(
      { weight: 6, arbitrary: fc.array(normalizedMetric(t), { minLength: 1, maxLength: 40 }) },
      { weight: 2, arbitrary: fc.array(fc.record({ id: fc.constantFrom("m", " m", ""), data: fc.array(anyPoint, { maxLength: 3 }) }), { minLength: 1, maxLength: 3 }) },
      { weight: 1, arbitrary: fc.constantFrom<unknown>([], {}, "x", [null], [{ id: "m", data: [{ timestamp: 1, value: 1, tags: null }] }]) },
    ),
  ),
);

describe("columnar write bodies (the JSON worker's answer)", () => {
  it("are taken exactly when normalizedMetricsBody takes the body, and hold the same points", () => {
    let taken = 0;
    // One buffer for every body, as the store uses it (grown as bodies need).
    const scratch = new LogScratch();
    fc.assert(
      fc.property(body, ([t, b]) => {
        const text = JSON.stringify(b);
        const cols = parseColumns(t, text);
        // The main thread's check runs on the parsed body, as the HTTP route does (no nulls here
        // but in the constant bodies, which the worker leaves to the main thread).
        const writes = text.includes("null") ? undefined : normalizedMetricsBody(t, JSON.parse(text));
        expect(cols === undefined).toBe(writes === undefined);
        if (!cols || !writes) return;
        taken++;
        const nonEmpty = writes.filter((w) => w.points.length > 0);
        expect(columnsToWrites(cols).map((w) => ({ type: w.type, id: w.id, points: w.points }))).toEqual(nonEmpty);
        // The ingest log holds the same bytes whichever way the body came.
        const sids = nonEmpty.map((_, i) => i + 1);
        expect(encodeLogBody(columnsLogBody(cols, sids))).toEqual(encodeLogBody(buildLogBody(nonEmpty, sids)));
        // Written by hand into the store's reused buffer: the same bytes as cbor-x's, which decode back.
        const viaScratch = encodeLogBody(columnsLogBody(cols, sids), scratch);
        expect(Array.from(viaScratch)).toEqual(Array.from(encodeLogBody(buildLogBody(nonEmpty, sids))));
        const back = decodeLogBody(viaScratch.slice());
        expect([Array.from(back.sids), Array.from(back.counts), Array.from(back.ts), Array.from(back.nums)]).toEqual([sids, Array.from(cols.counts), Array.from(cols.ts), Array.from(cols.values)]);
      }),
      { numRuns: 2000 },
    );
    expect(taken).toBeGreaterThan(800);
    // 2,000 bodies compared several ways: about 10 s idle, three times that on a loaded machine.
  }, 120_000);

  it("leave malformed JSON to the main thread", () => {
    expect(parseColumns("gauge", '[{"id":"m","data":[{"timestamp":1,"value":1}]}')).toBeUndefined();
    expect(parseColumns("gauge", "")).toBeUndefined();
  });
});
