import { closeSync, fstatSync, openSync, readSync } from "node:fs";

/**
 * The ingest log's records (ingest-log.ts), and reading them back from a segment file a piece
 * at a time: a record is magic, CRC-32 (of what follows it), body length, arrival (whole seconds
 * since the epoch, 0 when not kept), sequence (float64), body.
 */
export const MAGIC = 0x4f50_4c31;
export const HEADER = 24;

/** Bytes read from a segment at a time (a record larger than this is read whole). */
const READ_BYTES = 1024 * 1024;

export interface LogRecord {
  seq: number;
  /** Arrival in whole seconds since the epoch (0: not kept). */
  arrived: number;
  /** A view valid until the next record is asked for. */
  body: Uint8Array;
}

/** The end of the whole record at `o` (its magic, length and check right), or −1. */
export function recordEnd(bytes: Uint8Array, view: DataView, o: number): number {
  if (o + HEADER > bytes.length || view.getUint32(o, true) !== MAGIC) return -1;
  const len = view.getUint32(o + 8, true);
  const end = o + HEADER + len;
  if (len === 0 || end > bytes.length) return -1;
  return Bun.hash.crc32(bytes.subarray(o + HEADER, end), Bun.hash.crc32(bytes.subarray(o + 8, o + HEADER))) === view.getUint32(o + 4, true) ? end : -1;
}

/** The offset of the next whole record from `from` on, or −1. */
function nextRecord(bytes: Uint8Array, view: DataView, from: number): number {
  for (let o = bytes.indexOf(MAGIC & 0xff, from); o >= 0; o = bytes.indexOf(MAGIC & 0xff, o + 1)) if (recordEnd(bytes, view, o) >= 0) return o;
  return -1;
}

/** Reads `length` bytes of the file at `position` into buf from `at`; the file must hold them. */
function readFully(fd: number, path: string, buf: Uint8Array, at: number, length: number, position: number): void {
  for (let got = 0; got < length; ) {
    const n = readSync(fd, buf, at + got, length - got, position + got);
    if (n === 0) throw new Error(`${path} is shorter than its size`);
    got += n;
  }
}

/** Whether the file holds only zeros from `position` to `size` (read a piece at a time). */
function zerosTo(fd: number, path: string, position: number, size: number): boolean {
  // Not the records' buffer: the last body yielded may still be in use.
  const buf = new Uint8Array(Math.min(64 * 1024, size - position));
  for (let p = position; p < size; ) {
    const n = Math.min(buf.length, size - p);
    readFully(fd, path, buf, 0, n, p);
    for (let i = 0; i < n; i++) if (buf[i] !== 0) return false;
    p += n;
  }
  return true;
}

const recordAt = (bytes: Uint8Array, view: DataView, o: number, end: number): LogRecord => ({
  seq: view.getFloat64(o + 16, true),
  arrived: view.getUint32(o + 12, true),
  body: bytes.subarray(o + HEADER, end),
});

/**
 * The whole records of `bytes` from `from` on. A torn tail ends them; damage within them (a bad
 * sector) is skipped up to the next whole record (`damaged` is told), so that one bad record
 * does not take the acknowledged ones after it.
 */
export function* scanRecords(bytes: Uint8Array, from: number, damaged: () => void): Generator<LogRecord> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let o = from; o + HEADER <= bytes.length; ) {
    const end = recordEnd(bytes, view, o);
    if (end < 0) {
      const at = nextRecord(bytes, view, o + 1);
      if (at < 0) return;
      damaged();
      o = at;
      continue;
    }
    yield recordAt(bytes, view, o, end);
    o = end;
  }
}

/**
 * The whole records of a segment file, oldest first, read `readBytes` at a time into one buffer
 * (the bodies are views of it). Why not the file whole: a segment is up to 64 MB, and the
 * restart of a collector under remote write from 50,000 series held the file and every body
 * decoded from it at once, its peak (issue 28). The zeros written ahead of the appends end the
 * records. Otherwise, from the first record that is not whole on, the rest (at most about the
 * zeros written ahead, after a crash only) is read whole and scanned as scanRecords does.
 */
export function* segmentRecords(path: string, damaged: () => void, readBytes = READ_BYTES): Generator<LogRecord> {
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    let buf = new Uint8Array(Math.max(HEADER, Math.min(readBytes, size)));
    /** File offset of buf[0], bytes of the file in buf, and the next record's offset in buf. */
    let base = 0;
    let filled = 0;
    let o = 0;
    let view = new DataView(buf.buffer, 0, 0);
    /** Makes `need` bytes from `o` present (the caller knows the file has them). */
    const fill = (need: number) => {
      if (filled - o >= need) return;
      if (o > 0) {
        buf.copyWithin(0, o, filled);
        base += o;
        filled -= o;
        o = 0;
      }
      if (need > buf.length) {
        const grown = new Uint8Array(Math.max(need, 2 * buf.length));
        grown.set(buf.subarray(0, filled));
        buf = grown;
      }
      // As much as fits (at least what is needed), within what the file holds.
      const more = Math.min(buf.length, size - base) - filled;
      readFully(fd, path, buf, filled, more, base + filled);
      filled += more;
      view = new DataView(buf.buffer, buf.byteOffset, filled);
    };
    for (;;) {
      const left = size - (base + o);
      // Fewer bytes than a header: a torn tail (or the end).
      if (left < HEADER) return;
      fill(HEADER);
      const len = view.getUint32(o + 8, true);
      if (view.getUint32(o, true) === MAGIC && len > 0 && HEADER + len <= left) {
        fill(HEADER + len);
        const end = recordEnd(buf.subarray(0, filled), view, o);
        if (end >= 0) {
          yield recordAt(buf, view, o, end);
          o = end;
          continue;
        }
      }
      // The unwritten end: the zeros written ahead (ingest-log.ts).
      if (zerosTo(fd, path, base + o, size)) return;
      const rest = new Uint8Array(left);
      readFully(fd, path, rest, 0, left, base + o);
      // The record at 0 is not whole: scanRecords goes on from the next whole one, if any.
      yield* scanRecords(rest, 0, damaged);
      return;
    }
  } finally {
    closeSync(fd);
  }
}
