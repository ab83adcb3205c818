/**
 * The ingest worker's byte scan (src/metrics/json-columns.ts) against the text path it shortens
 * (JSON.parse, normalizedMetricsBody, columns: parseColumns): whenever the scan takes a body it
 * must give the same columns bit for bit, and it must take the usual bodies.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { capacityFor, type ColumnsOut, idOf, scanColumns } from "../../src/metrics/json-columns.ts";
import { LIMITS } from "../../src/metrics/limits.ts";
import { normalizedMetricsBody } from "../../src/metrics/normalized.ts";
import { parseJsonBody } from "../../src/http/body.ts";
import { type ColumnType, parseColumns } from "../../src/metrics/write-columns.ts";

const ws = fc.constantFrom("", "", "", " ", "\n", "\t ", "\r\n  ");

/** Number texts: what clients write, and the grammar's corners (valid or not). */
const digits = (min: number, max: number) => fc.string({ unit: fc.constantFrom(..."0123456789"), minLength: min, maxLength: max });
const grammarNumber = fc
  .tuple(
    fc.constantFrom("", "", "-"),
    fc.oneof(fc.constant("0"), fc.tuple(fc.constantFrom(..."123456789"), digits(0, 20)).map(([a, b]) => a + b)),
    fc.oneof(fc.constant(""), digits(1, 22).map((d) => `.${d}`)),
    fc.oneof(fc.constant(""), fc.tuple(fc.constantFrom("e", "E"), fc.constantFrom("", "+", "-"), digits(1, 3)).map(([e, s, d]) => e + s + d)),
  )
  .map(([s, i, f, e]) => s + i + f + e);
const numberText = fc.oneof(
  { weight: 4, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }).map((v) => JSON.stringify(v)) },
  { weight: 3, arbitrary: fc.integer({ min: -(2 ** 40), max: 2 ** 42 }).map(String) },
  { weight: 4, arbitrary: grammarNumber },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "01",
      "1.",
      ".5",
      "+1",
      "1e",
      "-",
      "1e400",
      "-1e400",
      "-0",
      "0.0",
      "9007199254740993",
      "9007199254740992",
      "2.2250738585072011e-308",
      "4.9e-324",
      "1.7976931348623157e308",
      "0.1",
      "123456789012345678901234567890",
      "1e22",
      "1e23",
      "1767225600000",
      "1767225600000.0",
      "1.767225600000e12",
      "true",
      "null",
      '"5"',
    ),
  },
);
const timestampText = fc.oneof(
  { weight: 24, arbitrary: fc.integer({ min: 0, max: 2 ** 42 }).map(String) },
  { weight: 2, arbitrary: numberText },
  { weight: 1, arbitrary: fc.constantFrom(String(LIMITS.maxTimestamp), String(LIMITS.maxTimestamp + 1), String(LIMITS.minTimestamp), String(LIMITS.minTimestamp - 1)) },
);
const stringText = (values: string[]) =>
  fc.oneof(
    { weight: 12, arbitrary: fc.constantFrom(...values.slice(0, 4)).map((v) => JSON.stringify(v)) },
    { weight: 3, arbitrary: fc.constantFrom(...values.slice(4)).map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: fc.constantFrom('"\\u0069d"', '"m\\n"', '"a\\"b"', '"é"', '"\u007f"') },
  );
const member = (key: fc.Arbitrary<string>, value: fc.Arbitrary<string>) => fc.tuple(ws, key, ws, ws, value, ws).map(([a, k, b, c, v, d]) => `${a}${k}${b}:${c}${v}${d}`);
const object = (members: fc.Arbitrary<string[]>) => members.map((m) => `{${m.join(",")}}`);
const array = (items: fc.Arbitrary<string>, max: number) => fc.tuple(ws, fc.array(items, { maxLength: max })).map(([w, a]) => `[${w}${a.join(",")}]`);

const tagsText = fc.constantFrom("{}", '{"a":"b"}', '{"a":1}', "null");
const valueText = {
  gauge: fc.oneof({ weight: 4, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }).map((v) => JSON.stringify(v)) }, { weight: 1, arbitrary: numberText }),
  counter: fc.oneof({ weight: 4, arbitrary: fc.maxSafeInteger().map(String) }, { weight: 1, arbitrary: numberText }),
};
const point = (type: ColumnType) => fc.oneof(
  {
    weight: 8,
    arbitrary: fc
      .tuple(member(fc.constant('"timestamp"'), timestampText), member(fc.constant('"value"'), valueText[type]), fc.boolean())
      .map(([t, v, swap]) => (swap ? [v, t] : [t, v])),
  },
  {
    weight: 1,
    arbitrary: fc.shuffledSubarray(
      [
        member(fc.constant('"timestamp"'), timestampText),
        member(fc.constant('"value"'), valueText[type]),
        member(fc.constant('"tags"'), tagsText),
        member(fc.constant('"timestamp"'), timestampText),
        member(fc.constant('"extra"'), numberText),
        member(fc.constant('"\\u0074imestamp"'), timestampText),
      ],
      { minLength: 0 },
    ).chain((ms) => (ms.length ? fc.tuple(...ms) : fc.constant([] as string[]))),
  },
).chain((ms) => object(fc.constant(ms)));
const pointsText = (type: ColumnType) => fc.oneof({ weight: 16, arbitrary: array(point(type), 5) }, { weight: 1, arbitrary: fc.constantFrom("null", "{}", "1", '"x"') });
const ids = ["m", "a.b", "cpu:0", "s1", " m", "m ", "", "i".repeat(LIMITS.metricIdLength), "i".repeat(LIMITS.metricIdLength + 1), "null"];
const metric = (type: ColumnType) => fc.oneof(
  {
    weight: 16,
    arbitrary: fc
      .tuple(member(fc.constant('"id"'), stringText(ids)), fc.option(member(fc.constant('"data"'), pointsText(type))), fc.option(member(fc.constant('"dataPoints"'), pointsText(type))), fc.integer({ min: 0, max: 5 }))
      .map(([id, data, dp, order]) => {
        const ms = [id, ...(data === null ? [] : [data]), ...(dp === null ? [] : [dp])];
        // Rotate the members: ids last, dataPoints before data, and so on.
        return ms.slice(order % ms.length).concat(ms.slice(0, order % ms.length));
      }),
  },
  {
    weight: 1,
    arbitrary: fc.shuffledSubarray(
      [member(fc.constant('"id"'), stringText(ids)), member(fc.constant('"id"'), stringText(ids)), member(fc.constant('"data"'), pointsText(type)), member(fc.constant('"other"'), numberText)],
      { minLength: 0 },
    ).chain((ms) => (ms.length ? fc.tuple(...ms) : fc.constant([] as string[]))),
  },
).chain((ms) => object(fc.constant(ms)));
const bodyText = (type: ColumnType) => fc.oneof(
  { weight: 10, arbitrary: fc.tuple(ws, array(metric(type), 5), ws).map(([a, b, c]) => a + b + c) },
  { weight: 1, arbitrary: fc.constantFrom("", "[]", "{}", "[", "[{}]", "\uFEFF[]", "null", '[{"id":"m","data":[{"timestamp":1,"value":1}]}] x', '[{"id":"m","data":[{"timestamp":1,"value":1}]},]') },
);

function scan(type: ColumnType, text: string): { out: ColumnsOut & { ids: string[] }; points: number } {
  const bytes = new TextEncoder().encode(text);
  // A larger buffer than the body: the scan must stop at `length`.
  const buf = new Uint8Array(bytes.length + 8);
  buf.set(bytes);
  buf.fill(0x20, bytes.length);
  const cap = capacityFor(bytes.length);
  const out = newOut(cap);
  const points = scanColumns(type, buf, bytes.length, out);
  return { out: { ...out, ids: Array.from({ length: out.entries }, (_, e) => idOf(buf, out, e)) }, points };
}

/**
 * What the main thread stores of a body (parseJsonBody, then the normalized check), as columns;
 * undefined when the body needs the schemas (or is refused). parseColumns is the same but for
 * bodies with a null anywhere, which it leaves to the main thread.
 */
function reference(type: ColumnType, text: string): { ids: string[]; counts: number[]; ts: number[]; values: number[] } | undefined {
  let body: unknown;
  try {
    body = parseJsonBody(text);
  } catch {
    return undefined;
  }
  const writes = normalizedMetricsBody(type, body);
  if (!writes) return undefined;
  const r = { ids: [] as string[], counts: [] as number[], ts: [] as number[], values: [] as number[] };
  for (const w of writes) {
    if (w.points.length === 0) continue;
    r.ids.push(w.id);
    r.counts.push(w.points.length);
    for (const p of w.points) {
      r.ts.push(p.timestamp);
      r.values.push(p.value as number);
    }
  }
  return r;
}

const newOut = (cap: { points: number; entries: number }): ColumnsOut => ({
  counts: new Uint32Array(cap.entries),
  ts: new Float64Array(cap.points),
  values: new Float64Array(cap.points),
  idStarts: new Uint32Array(cap.entries),
  idEnds: new Uint32Array(cap.entries),
  entries: 0,
});

const bits = (a: ArrayLike<number>) => Array.from(a, (v) => (Object.is(v, -0) ? "-0" : String(v)));

describe("scanning a JSON write body into columns", () => {
  for (const type of ["gauge", "counter"] as const) {
    it(`gives the columns parseColumns gives whenever it takes a body (${type})`, () => {
      let taken = 0;
      let both = 0;
      fc.assert(
        fc.property(bodyText(type), (text) => {
          const { out, points } = scan(type, text);
          const ref = reference(type, text);
          if (ref) both++;
          if (points < 0) return;
          taken++;
          expect(ref).toBeDefined();
          expect(out.ids).toEqual(ref!.ids);
          expect(Array.from(out.counts.subarray(0, out.ids.length))).toEqual(ref!.counts);
          expect(bits(out.ts.subarray(0, points))).toEqual(bits(ref!.ts));
          expect(bits(out.values.subarray(0, points))).toEqual(bits(ref!.values));
          // And parseColumns, the worker's text path, agrees wherever it takes the body.
          const cols = parseColumns(type, text);
          if (cols) expect(bits(cols.values)).toEqual(bits(ref!.values));
        }),
        { numRuns: 4000 },
      );
      // Not vacuous: both paths take a good share of the bodies, the scan most of what the text path takes.
      expect(both).toBeGreaterThan(200);
      expect(taken).toBeGreaterThan(both / 3);
    });
  }

  it("takes the bodies clients send, numbers of every precision included", () => {
    const body = JSON.stringify(
      Array.from({ length: 50 }, (_, s) => ({ id: `s${s}`, data: Array.from({ length: 20 }, (_, j) => ({ timestamp: 1767225600000 + j * 10_000, value: (s % 100) + Math.sin(j / 10) * 10 })) })),
    );
    const { out, points } = scan("gauge", body);
    const cols = parseColumns("gauge", body)!;
    expect(points).toBe(1000);
    expect(bits(out.values.subarray(0, points))).toEqual(bits(cols.values));
  });

  it("reads numbers exactly as JSON.parse does, halfway cases and long mantissas included", () => {
    fc.assert(
      fc.property(fc.oneof(grammarNumber, fc.double({ noNaN: true, noDefaultInfinity: true }).map((v) => JSON.stringify(v))), (n) => {
        const text = `[{"id":"m","data":[{"timestamp":1,"value":${n}}]}]`;
        const { out, points } = scan("gauge", text);
        let expected: number;
        try {
          expected = JSON.parse(n);
        } catch {
          expect(points).toBe(-1);
          return;
        }
        if (!Number.isFinite(expected)) expect(points).toBe(-1);
        else expect(bits([out.values[0]!])).toEqual(bits([expected]));
      }),
      { numRuns: 20_000 },
    );
  });

  it("stops at the length given, whatever follows in the buffer", () => {
    const text = '[{"id":"m","data":[{"timestamp":1,"value":1}]}]';
    const bytes = new TextEncoder().encode(`${text}garbage`);
    const cap = capacityFor(text.length);
    const out = newOut(cap);
    expect(scanColumns("gauge", bytes, text.length, out)).toBe(1);
    expect(scanColumns("gauge", bytes, text.length + 2, out)).toBe(-1);
  });
});
