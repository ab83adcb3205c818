/**
 * The label fields of a remote-write TimeSeries (prometheus.TimeSeries field 1, each a Label
 * message: name = 1, value = 2) as Prometheus encodes them, labels in the order given (Prometheus
 * sends them sorted by name). These are the bytes remote-write-columns.ts keys its cache by; a
 * collector that knows a series' labels can put it in that cache before the series is sent
 * again. Written into one reused buffer: filling the cache for 50,000 series at start made no
 * garbage of its own (issue 28).
 */

const utf8 = new TextEncoder();

function varintSize(n: number): number {
  let size = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 128);
    size++;
  }
  return size;
}

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
  return bytes === 0 ? 0 : 1 + varintSize(bytes) + bytes;
}

export class LabelFieldWriter {
  bytes = new Uint8Array(4096);
  length = 0;

  /**
   * Writes the label fields of names[i] = values[i], i < n, in that order; the result is
   * bytes[0, length), valid until the next write.
   */
  write(names: readonly string[], values: readonly string[], n: number): void {
    let size = 0;
    for (let i = 0; i < n; i++) {
      const inner = stringFieldSize(utf8Length(names[i]!)) + stringFieldSize(utf8Length(values[i]!));
      size += 1 + varintSize(inner) + inner;
    }
    if (size > this.bytes.length) this.bytes = new Uint8Array(Math.max(size, this.bytes.length * 2));
    let at = 0;
    for (let i = 0; i < n; i++) {
      const name = names[i]!;
      const value = values[i]!;
      const nl = utf8Length(name);
      const vl = utf8Length(value);
      this.bytes[at++] = 0x0a;
      at = this.varint(at, stringFieldSize(nl) + stringFieldSize(vl));
      at = this.string(at, 0x0a, name, nl);
      at = this.string(at, 0x12, value, vl);
    }
    this.length = at;
  }

  private varint(at: number, n: number): number {
    const out = this.bytes;
    while (n >= 0x80) {
      out[at++] = (n & 0x7f) | 0x80;
      n = Math.floor(n / 128);
    }
    out[at++] = n;
    return at;
  }

  private string(at: number, key: number, s: string, bytes: number): number {
    if (bytes === 0) return at;
    const out = this.bytes;
    out[at++] = key;
    at = this.varint(at, bytes);
    if (bytes === s.length) {
      // ASCII: one byte a character, without a view or an encoder's result.
      for (let i = 0; i < s.length; i++) out[at + i] = s.charCodeAt(i);
    } else utf8.encodeInto(s, out.subarray(at, at + bytes));
    return at + bytes;
  }
}
