/**
 * A JSON write body of gauges or counters scanned from its UTF-8 bytes straight into columns,
 * without the string and the objects of JSON.parse: the ingest worker's fast path (issue 28:
 * the text and objects of every body were most of the memory ingest allocates, and what the
 * allocator took from the system and gave back page by page).
 *
 * It takes only what it can read exactly as `parseColumns` would (JSON.parse, then
 * normalizedMetricsBody): ASCII bodies of the normalized form without point tags, escapes,
 * repeated keys, nulls or a `dataPoints` before a `data` in one metric. For anything else it
 * answers -1 and the caller parses the text as before, which converts or explains it; so a body
 * gets the same columns, or the same answer, whichever way it goes (property-tested).
 */
import { POW10, quotientOfDigits } from "./decimal-exact.ts";
import { LIMITS, timestampInRange } from "./limits.ts";
import type { ColumnType } from "./write-columns.ts";

/** Where the scan writes: arrays with room for the most a body of that length can hold (see capacityFor). */
export interface ColumnsOut {
  counts: Uint32Array;
  ts: Float64Array;
  values: Float64Array;
  /**
   * Each entry's metric id as the bytes [idStarts[e], idEnds[e]) of the body (ASCII, checked to
   * be a normalized id): the caller makes strings of them, or looks them up without one.
   */
  idStarts: Uint32Array;
  idEnds: Uint32Array;
  /** Entries written (set by the scan). */
  entries: number;
}

/**
 * The most points and entries a body of `bytes` bytes can hold: a point takes at least 25 bytes
 * (`{"value":0,"timestamp":0}`), an entry with points at least 40.
 */
export function capacityFor(bytes: number): { points: number; entries: number } {
  return { points: Math.ceil(bytes / 25) + 1, entries: Math.ceil(bytes / 40) + 1 };
}

// Bytes of the grammar.
const QUOTE = 0x22;
const COMMA = 0x2c;
const COLON = 0x3a;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const BACKSLASH = 0x5c;
const SPACE = 0x20;


/** Thrown inside the scan for anything it does not take; caught at its top. */
const NOT_TAKEN = new Error("not taken");

/**
 * Numbers the fast path cannot read exactly (more than 15 digits, as most float64 values printed
 * in full have) are gathered as text, `[a,b,…]`, and read by one JSON.parse after the scan: the
 * engine's own parser, so the same doubles, at about 27 ns a number instead of about 130 for a
 * string and a Number() each. Reused from body to body.
 */
let gathered = new Uint8Array(64 * 1024);
/** Where each gathered number goes: column position × 2, + 1 for a value (else a timestamp). */
let targets = new Uint32Array(8 * 1024);
const latin1 = new TextDecoder("latin1");

class Scanner {
  i = 0;
  /** Bytes of `gathered` used; numbers gathered. */
  gatheredLength = 1;
  deferred = 0;
  constructor(
    readonly b: Uint8Array,
    readonly n: number,
  ) {
    gathered[0] = OPEN_ARRAY;
  }

  /** Gathers the text of bytes [start, end) as a number to read later for column slot `target`. */
  defer(start: number, end: number, target: number): void {
    const need = this.gatheredLength + (end - start) + 2;
    if (need > gathered.length) {
      const g = new Uint8Array(Math.max(need, gathered.length * 2));
      g.set(gathered.subarray(0, this.gatheredLength));
      gathered = g;
    }
    let g = this.gatheredLength;
    if (this.deferred > 0) gathered[g++] = COMMA;
    // A loop rather than set(subarray): a number is a few bytes, a view object per number was a sixth of the scan.
    const b = this.b;
    for (let k = start; k < end; k++) gathered[g++] = b[k]!;
    this.gatheredLength = g;
    if (this.deferred === targets.length) {
      const t = new Uint32Array(targets.length * 2);
      t.set(targets);
      targets = t;
    }
    targets[this.deferred++] = target;
  }

  /** Reads the gathered numbers (one JSON.parse) into their column slots. */
  resolve(ts: Float64Array, values: Float64Array): void {
    if (this.deferred === 0) return;
    gathered[this.gatheredLength++] = CLOSE_ARRAY;
    const numbers = JSON.parse(latin1.decode(gathered.subarray(0, this.gatheredLength))) as number[];
    for (let k = 0; k < this.deferred; k++) {
      const t = targets[k]!;
      if (t & 1) values[t >>> 1] = numbers[k]!;
      else ts[t >>> 1] = numbers[k]!;
    }
  }

  ws(): void {
    const b = this.b;
    let i = this.i;
    for (; i < this.n; i++) {
      const c = b[i]!;
      if (c !== SPACE && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
    }
    this.i = i;
  }

  /** The next non-space byte, consumed. */
  next(): number {
    const b = this.b;
    for (let i = this.i; i < this.n; i++) {
      const c = b[i]!;
      if (c !== SPACE && c !== 0x0a && c !== 0x0d && c !== 0x09) {
        this.i = i + 1;
        return c;
      }
    }
    throw NOT_TAKEN;
  }

  expect(c: number): void {
    if (this.next() !== c) throw NOT_TAKEN;
  }

  /** A string's bytes [start, end) after its opening quote: ASCII, no escapes, no control characters. */
  stringEnd(): number {
    const b = this.b;
    for (let i = this.i; i < this.n; i++) {
      const c = b[i]!;
      if (c === QUOTE) {
        this.i = i + 1;
        return i;
      }
      if (c === BACKSLASH || c < SPACE || c >= 0x7f) throw NOT_TAKEN;
    }
    throw NOT_TAKEN;
  }

  /** A key, as the index of `names` it equals; any other key is not taken. */
  key(names: readonly Uint8Array[]): number {
    this.expect(QUOTE);
    const start = this.i;
    const end = this.stringEnd();
    const len = end - start;
    const b = this.b;
    // The names have different lengths: the length picks the candidate, the bytes confirm it.
    for (let k = 0; k < names.length; k++) {
      const name = names[k]!;
      if (name.length !== len) continue;
      for (let j = 0; j < len; j++) if (b[start + j] !== name[j]) throw NOT_TAKEN;
      this.expect(COLON);
      return k;
    }
    throw NOT_TAKEN;
  }

  /**
   * A JSON number, exactly as JSON.parse reads it; NaN (which no JSON number is) when it was
   * gathered for later (`defer`), the caller then telling where it goes.
   */
  number(): number {
    this.ws();
    const b = this.b;
    const n = this.n;
    const start = this.i;
    let i = start;
    const neg = b[i] === MINUS;
    if (neg) i++;
    // The significant digits: the first 9 in hi, the next 8 in lo (loDigits of them); more
    // than 17 are only counted. The number is (hi · 10^loDigits + lo) × 10^scale.
    let hi = 0;
    let lo = 0;
    let loDigits = 0;
    let digits = 0;
    let scale = 0;
    let c = b[i];
    if (c === ZERO) {
      i++;
      c = b[i];
      if (c !== undefined && c >= ZERO && c <= NINE) throw NOT_TAKEN; // a leading zero
    } else if (c !== undefined && c > ZERO && c <= NINE) {
      for (; i < n && (c = b[i]!) >= ZERO && c <= NINE; i++) {
        if (digits < 9) hi = hi * 10 + (c - ZERO);
        else if (digits < 17) {
          lo = lo * 10 + (c - ZERO);
          loDigits++;
        } else scale++;
        digits++;
      }
    } else throw NOT_TAKEN;
    if (i < n && b[i] === DOT) {
      i++;
      const first = i;
      for (; i < n && (c = b[i]!) >= ZERO && c <= NINE; i++) {
        if (digits === 0 && c === ZERO) scale--;
        else {
          if (digits < 9) hi = hi * 10 + (c - ZERO);
          else if (digits < 17) {
            lo = lo * 10 + (c - ZERO);
            loDigits++;
          }
          // Further digits are beyond both exact paths: the text is read as before (defer).
          if (digits < 17) scale--;
          digits++;
        }
      }
      if (i === first) throw NOT_TAKEN;
    }
    if (i < n && (b[i] === 0x65 || b[i] === 0x45)) {
      i++;
      let eneg = false;
      if (b[i] === MINUS || b[i] === PLUS) eneg = b[i++] === MINUS;
      const first = i;
      let e = 0;
      for (; i < n && (c = b[i]!) >= ZERO && c <= NINE; i++) if (e < 1e6) e = e * 10 + (c - ZERO);
      if (i === first) throw NOT_TAKEN;
      scale += eneg ? -e : e;
    }
    this.i = i;
    // Clinger's fast path: up to 15 digits are an exact double, and so is 10^k up to k = 22, so
    // one multiplication or division rounds once, to the nearest double, as parsing does.
    if (digits <= 15 && scale >= -22 && scale <= 22) {
      const m = hi * POW10[loDigits]! + lo;
      const v = scale >= 0 ? m * POW10[scale]! : m / POW10[-scale]!;
      return neg ? -v : v;
    }
    // 16 or 17 digits with a fraction (a float64 printed in full): read exactly when it can be
    // told for certain (decimal-exact.ts), which is nearly always.
    if (digits <= 17 && digits >= 16 && scale < 0 && scale >= -22) {
      const v = quotientOfDigits(hi, loDigits, lo, -scale);
      if (!Number.isNaN(v)) return neg ? -v : v;
    }
    this.numberStart = start;
    return Number.NaN;
  }

  /** Start of the last number read (for defer). */
  numberStart = 0;

  /** Reads a `[`; false when the array is empty (its `]` read too). */
  openArray(): boolean {
    const c = this.next();
    if (c !== OPEN_ARRAY) throw NOT_TAKEN;
    this.ws();
    if (this.b[this.i] === CLOSE_ARRAY) {
      this.i++;
      return false;
    }
    return true;
  }
}

const bytesOf = (s: string) => Uint8Array.from(s, (ch) => ch.charCodeAt(0));
const METRIC_KEYS = [bytesOf("id"), bytesOf("data"), bytesOf("dataPoints")];
const POINT_KEYS = [bytesOf("timestamp"), bytesOf("value")];

/**
 * Scans the first `length` bytes of `bytes` (a JSON write body of `type`) into `out`; returns the
 * number of points, or -1 when the body is not one this scan takes (see above). Entries are the
 * body's metrics that hold points, in body order, as parseColumns makes them.
 */
export function scanColumns(type: ColumnType, bytes: Uint8Array, length: number, out: ColumnsOut): number {
  const s = new Scanner(bytes, length);
  out.entries = 0;
  try {
    const points = scanBody(s, type, out);
    s.ws();
    if (s.i !== length) return -1;
    if (s.deferred > 0) {
      s.resolve(out.ts, out.values);
      // The checks the scan could not make before the numbers were read.
      const counter = type === "counter";
      for (let k = 0; k < s.deferred; k++) {
        const target = targets[k]!;
        const ok = target & 1 ? valueOk(out.values[target >>> 1]!, counter) : timestampOk(out.ts[target >>> 1]!);
        if (!ok) return -1;
      }
    }
    return points;
  } catch (e) {
    if (e === NOT_TAKEN) return -1;
    throw e;
  }
}

function scanBody(s: Scanner, type: ColumnType, out: ColumnsOut): number {
  if (!s.openArray()) return fail(); // [] is not a write body the normalized check takes
  const counter = type === "counter";
  let o = 0;
  for (;;) {
    s.expect(OPEN_OBJECT);
    const from = o;
    let idStart = 0;
    let idEnd = 0;
    let seen = 0; // bits of METRIC_KEYS
    s.ws();
    if (s.b[s.i] === CLOSE_OBJECT) return fail(); // no id
    for (;;) {
      const k = s.key(METRIC_KEYS);
      if (seen & (1 << k)) return fail();
      // dataPoints follow data in the columns; in the other order they would not.
      if (k === 1 && seen & 4 && o > from) return fail();
      seen |= 1 << k;
      if (k === 0) {
        idStart = idBytes(s);
        idEnd = s.i - 1;
      } else o = points(s, counter, out, o);
      const c = s.next();
      if (c === CLOSE_OBJECT) break;
      if (c !== COMMA) return fail();
    }
    if (!(seen & 1)) return fail();
    if (o > from) {
      const e = out.entries;
      if (e >= out.counts.length || e >= out.idStarts.length) return fail();
      out.counts[e] = o - from;
      out.idStarts[e] = idStart;
      out.idEnds[e] = idEnd;
      out.entries = e + 1;
    }
    const c = s.next();
    if (c === CLOSE_ARRAY) return o;
    if (c !== COMMA) return fail();
  }
}

/**
 * A normalized metric id (1 to LIMITS.metricIdLength characters, not starting or ending with a
 * space): returns where its bytes start; they end before the closing quote (the scanner is past it).
 */
function idBytes(s: Scanner): number {
  s.expect(QUOTE);
  const start = s.i;
  const end = s.stringEnd();
  const len = end - start;
  const b = s.b;
  if (len === 0 || len > LIMITS.metricIdLength || b[start] === SPACE || b[end - 1] === SPACE) return fail();
  return start;
}

/** The id of entry `e` as a string (for callers without a dictionary of ids). */
export function idOf(bytes: Uint8Array, out: ColumnsOut, e: number): string {
  let id = "";
  for (let k = out.idStarts[e]!; k < out.idEnds[e]!; k++) id += String.fromCharCode(bytes[k]!);
  return id;
}

/** A `data` or `dataPoints` array, written from column position `o`; returns the next position. */
function points(s: Scanner, counter: boolean, out: ColumnsOut, o: number): number {
  if (!s.openArray()) return o;
  const ts = out.ts;
  const values = out.values;
  for (;;) {
    s.expect(OPEN_OBJECT);
    let seen = 0;
    let t = 0;
    let v = 0;
    for (;;) {
      const k = s.key(POINT_KEYS);
      if (seen & (1 << k)) return fail();
      seen |= 1 << k;
      if (o >= ts.length) return fail();
      if (k === 0) {
        t = s.number();
        if (Number.isNaN(t)) s.defer(s.numberStart, s.i, o * 2);
        else if (!timestampOk(t)) return fail();
      } else {
        v = s.number();
        if (Number.isNaN(v)) s.defer(s.numberStart, s.i, o * 2 + 1);
        else if (!valueOk(v, counter)) return fail();
      }
      const c = s.next();
      if (c === CLOSE_OBJECT) break;
      if (c !== COMMA) return fail();
    }
    if (seen !== 3) return fail();
    ts[o] = t;
    values[o] = v;
    o++;
    const c = s.next();
    if (c === CLOSE_ARRAY) return o;
    if (c !== COMMA) return fail();
  }
}

const timestampOk = (t: number) => Number.isSafeInteger(t) && timestampInRange(t);
const valueOk = (v: number, counter: boolean) => (counter ? Number.isSafeInteger(v) : Number.isFinite(v));

function fail(): never {
  throw NOT_TAKEN;
}
