import { ByteReader, ByteWriter } from "./bytes.ts";
import { corrupt } from "./errors.ts";
import { readIntColumn, writeIntColumn } from "./int-column.ts";

/**
 * Columns of strings (string series, and per-point tags as JSON) as a dictionary of their
 * distinct entries in order of first appearance, plus one index per point in the integer
 * column: a series that repeats a few states costs a few bits per point.
 *
 * Many distinct strings (messages, log lines) are compressed with zstd when that saves at
 * least an eighth: it finds what repeats inside and across entries, which a dictionary of
 * whole strings cannot.
 *
 * Layout: flags (1 byte: bit 0 = UTF-16 code units instead of UTF-8, used when some string is
 * not well-formed Unicode, which UTF-8 cannot carry; bit 1 = entries zstd-compressed), entry
 * count (varint), the entries: per entry its byte length (varint) and bytes — when compressed,
 * preceded by their size (varint) and the compressed size (varint) and replaced by the zstd
 * frame — then the indices (integer column).
 */

const UTF16 = 1;
const ZSTD = 2;
/** Entries smaller than this are not worth a zstd frame (its header alone is about 10 bytes). */
const ZSTD_MIN_BYTES = 128;
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

function utf16Bytes(s: string): Uint8Array {
  const a = new Uint16Array(s.length);
  for (let i = 0; i < s.length; i++) a[i] = s.charCodeAt(i);
  return new Uint8Array(a.buffer);
}

function utf16String(b: Uint8Array): string {
  if (b.length % 2 !== 0) corrupt("odd UTF-16 length");
  // A copy into a buffer of its own (aligned for the code units): `b` may be a Buffer (the zstd
  // path's), whose slice() is a view of the whole decompressed entries, not a copy.
  const a = new Uint16Array(new Uint8Array(b).buffer);
  let s = "";
  for (let i = 0; i < a.length; i += 4096) s += String.fromCharCode(...a.subarray(i, i + 4096));
  return s;
}

/**
 * Writes the column of keys; `key(i)` is point i's entry, `null` for none (index 0, only when
 * `nullable`).
 */
export function writeDictionary(out: ByteWriter, n: number, key: (i: number) => string | null): void {
  const index = new Map<string, number>();
  const entries: string[] = [];
  const idx = new Float64Array(n);
  let wellFormed = true;
  for (let i = 0; i < n; i++) {
    const k = key(i);
    if (k === null) continue;
    let j = index.get(k);
    if (j === undefined) {
      j = entries.length + 1;
      index.set(k, j);
      entries.push(k);
      if (wellFormed && !k.isWellFormed()) wellFormed = false;
    }
    idx[i] = j;
  }
  const body = new ByteWriter();
  for (const e of entries) {
    const b = wellFormed ? encoder.encode(e) : utf16Bytes(e);
    body.varuint(b.length);
    body.bytes(b);
  }
  const raw = body.finish();
  const packed = raw.length >= ZSTD_MIN_BYTES ? Bun.zstdCompressSync(raw, { level: 3 }) : undefined;
  const compress = packed !== undefined && packed.length <= raw.length - raw.length / 8;
  out.byte((wellFormed ? 0 : UTF16) | (compress ? ZSTD : 0));
  out.varuint(entries.length);
  if (compress) {
    out.varuint(raw.length);
    out.varuint(packed.length);
    out.bytes(packed);
  } else out.bytes(raw);
  writeIntColumn(out, idx, n);
}

/** Reads a dictionary column: the entries, and per point its entry number (0 = none). */
export function readDictionary(r: ByteReader, n: number): { entries: string[]; idx: Float64Array } {
  const flags = r.byte();
  if (flags & ~(UTF16 | ZSTD)) corrupt(`string flags ${flags}`);
  const count = r.count(flags & ZSTD ? 0 : 1);
  let er = r;
  if (flags & ZSTD) {
    const size = r.varuint();
    const frame = r.take(r.varuint());
    let raw: Uint8Array;
    try {
      raw = Bun.zstdDecompressSync(frame);
    } catch {
      corrupt("string entries that do not decompress");
    }
    if (raw.length !== size) corrupt("string entries of the wrong size");
    er = new ByteReader(raw, 0, raw.length);
  }
  const entries: string[] = new Array(count);
  for (let j = 0; j < count; j++) {
    const b = er.take(er.varuint());
    if (flags & UTF16) entries[j] = utf16String(b);
    else {
      try {
        entries[j] = decoder.decode(b);
      } catch {
        corrupt("invalid UTF-8");
      }
    }
  }
  if (er !== r && er.pos !== er.end) corrupt("bytes left after the string entries");
  const idx = new Float64Array(n);
  readIntColumn(r, n, idx);
  for (let i = 0; i < n; i++) {
    const j = idx[i]!;
    if (!(j >= 0 && j <= count)) corrupt("dictionary index out of range");
  }
  return { entries, idx };
}
