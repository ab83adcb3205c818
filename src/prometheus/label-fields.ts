/**
 * The label fields of a remote-write TimeSeries (prometheus.TimeSeries field 1, each a Label
 * message: name = 1, value = 2) as Prometheus encodes them, labels in the order given (Prometheus
 * sends them sorted by name). These are the bytes remote-write-columns.ts keys its cache by; a
 * collector that knows a series' labels can put it in that cache before the series is sent
 * again. Written into one reused buffer: filling the cache for 50,000 series at start made no
 * garbage of its own (issue 28).
 */
import { ByteWriter, varuintSize } from "../codec/bytes.ts";

const utf8 = new TextEncoder();

/** Bytes of `s` in UTF-8. */
function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c < 0xdc00 && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d < 0xe000) {
        n += 4;
        i++;
      } else n += 3;
    } else n += 3;
  }
  return n;
}

/** Proto3 leaves empty strings out. */
function stringFieldSize(bytes: number): number {
  return bytes === 0 ? 0 : 1 + varuintSize(bytes) + bytes;
}

export class LabelFieldWriter {
  private readonly out = new ByteWriter(4096);

  /** The last write's bytes: bytes[0, length), valid until the next write. */
  get bytes(): Uint8Array {
    return this.out.buf;
  }

  get length(): number {
    return this.out.pos;
  }

  /** Writes the label fields of names[i] = values[i], i < n, in that order. */
  write(names: readonly string[], values: readonly string[], n: number): void {
    const out = this.out;
    out.pos = 0;
    for (let i = 0; i < n; i++) {
      const name = names[i]!;
      const value = values[i]!;
      const nl = utf8Length(name);
      const vl = utf8Length(value);
      out.byte(0x0a);
      out.varuint(stringFieldSize(nl) + stringFieldSize(vl));
      this.string(0x0a, name, nl);
      this.string(0x12, value, vl);
    }
  }

  private string(key: number, s: string, bytes: number): void {
    if (bytes === 0) return;
    const out = this.out;
    out.byte(key);
    out.varuint(bytes);
    out.ensure(bytes);
    const at = out.pos;
    if (bytes === s.length) {
      // ASCII: one byte a character, without a view or an encoder's result.
      for (let i = 0; i < s.length; i++) out.buf[at + i] = s.charCodeAt(i);
    } else utf8.encodeInto(s, out.buf.subarray(at, at + bytes));
    out.pos = at + bytes;
  }
}
