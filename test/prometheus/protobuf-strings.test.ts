import { describe, expect, it } from "vitest";
import { ProtobufError, ProtoReader } from "../../src/prometheus/protobuf.ts";

/** A length-delimited field's content (length then bytes) for each of `parts`, one after the other. */
function fields(...parts: Uint8Array[]): Uint8Array {
  const out: number[] = [];
  for (const p of parts) out.push(p.length, ...p);
  return Uint8Array.from(out);
}
const utf8 = (s: string) => new TextEncoder().encode(s);

describe("protobuf string fields", () => {
  it("reads ASCII and multi-byte UTF-8 as sent, one field after the other, within the reader's end", () => {
    const buf = fields(utf8("instance"), utf8("été 日本 🙂"), utf8(""), utf8("x"));
    const r = new ProtoReader(buf);
    expect([r.string(), r.string(), r.string(), r.string()]).toEqual(["instance", "été 日本 🙂", "", "x"]);
    expect(r.done()).toBe(true);
    // A field running past the reader's end is refused, not read from the bytes after it.
    expect(() => new ProtoReader(buf, 0, 5).string()).toThrow(ProtobufError);
  });

  it("refuses bytes that are not UTF-8 (a lone continuation byte, a cut sequence, an overlong form)", () => {
    for (const bad of [[0x61, 0x80], [0xe6, 0x97], [0xc0, 0xaf]]) {
      expect(() => new ProtoReader(fields(Uint8Array.from(bad))).string()).toThrow(/not valid UTF-8/);
    }
  });
});
