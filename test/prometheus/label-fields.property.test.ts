/**
 * The label fields written for a series known from the store (src/prometheus/label-fields.ts)
 * are the bytes protobufjs, an independent encoder, writes for the same labels in the same
 * order; and isSeriesIdOf says yes exactly to the id seriesId makes.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LabelFieldWriter } from "../../src/prometheus/label-fields.ts";
import { isSeriesIdOf, seriesId } from "../../src/prometheus/series-mapping.ts";
import { encodeWriteRequest } from "../helpers/remote-write.ts";

const name = fc.oneof(fc.constantFrom("__name__", "job", "instance", "A", "Z_up", "_x", "metric", "le"), fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_]{0,12}$/));
const value = fc.oneof(
  fc.constantFrom("x", "a:9100", 'q"uote', "back\\slash", "line\nbreak", "é", "日本", "🙂", "v".repeat(300)),
  fc.string({ minLength: 1, maxLength: 20, unit: "grapheme" }),
);
const labelSet = fc.dictionary(name, value, { minKeys: 1, maxKeys: 10 });

/** The TimeSeries body protobufjs writes for a series with these labels and no samples. */
function protobufjsFields(labels: [string, string][]): Uint8Array {
  const req = encodeWriteRequest([{ labels: Object.fromEntries(labels), samples: [] }]);
  // WriteRequest field 1 (0x0a), its length as a varint, then the TimeSeries.
  let at = 1;
  while (req[at]! & 0x80) at++;
  return req.subarray(at + 1);
}

describe("label fields", () => {
  it("are the bytes protobufjs writes for the same labels", () => {
    const w = new LabelFieldWriter();
    fc.assert(
      fc.property(labelSet, (labels) => {
        const sorted = Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
        w.write(
          sorted.map(([k]) => k),
          sorted.map(([, v]) => v),
          sorted.length,
        );
        expect(Array.from(w.bytes.subarray(0, w.length))).toEqual(Array.from(protobufjsFields(sorted)));
      }),
    );
  });
});

describe("isSeriesIdOf", () => {
  it("is true for the id seriesId makes and false for any other", () => {
    fc.assert(
      fc.property(labelSet, fc.string({ minLength: 1, maxLength: 10 }), fc.string({ maxLength: 3 }), (labels, metric, noise) => {
        const id = seriesId(metric, labels);
        const names = Object.keys(labels)
          .filter((k) => k !== "__name__" && labels[k] !== "")
          .sort();
        const values = names.map((k) => labels[k]!);
        const is = (x: string) => isSeriesIdOf(x, metric, names, values, names.length);
        expect(is(id)).toBe(true);
        for (const other of [id + noise, id.slice(0, -1), noise + id, id.replace('"', "'"), id.replace('",', '";'), id.replace("{", "("), id.replace("}", ")"), id.replace('="', ':"'), seriesId(`${metric}x`, labels)]) expect(is(other)).toBe(other === id);
      }),
    );
  });
});
