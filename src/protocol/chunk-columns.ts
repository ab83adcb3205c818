/**
 * A data chunk straight into columns (issue 28). The agent's chunks are CBOR with cbor-x records:
 * decoded by cbor-x, each point became an object and each write an array of them, garbage the
 * moment the batch was stored: about 50 bytes a point, which under MQTT ingest at millions of
 * points a second made the engine's heap (and the collector's peak RSS) grow by hundreds of MB
 * between collections. Here the bytes are read once into reused typed arrays, one set per
 * numeric type, and ids are looked up by their bytes (no string made for an id seen before).
 *
 * Only the agent's own shape is read: an array of records {type, id, points} of a gauge or
 * counter with points that are records {timestamp, value}, every value one the write checks
 * accept (normalized.ts: a safe integer timestamp in range; a finite gauge, a safe integer
 * counter; NaN with `markers`), integers of at most 32 bits or float64s, definite lengths.
 * Anything else (tags, other types, maps, other encodings of numbers, trailing bytes, a record
 * not defined in the chunk) gives false, and the caller decodes the batch with cbor-x and the
 * schemas as before, which accept or explain it: what this accepts is stored exactly as that
 * path stores it.
 */
import { BytesMap } from "../codec/bytes-map.ts";
import { timestampInRange } from "../metrics/limits.ts";
import { isNormalizedId } from "../metrics/normalized.ts";

/** One numeric type's columns, grown as needed and kept for the next batch. */
export class TypeColumns {
  ids: string[] = [];
  counts = new Uint32Array(64);
  ts = new Float64Array(256);
  values = new Float64Array(256);
  points = 0;

  get entries(): number {
    return this.ids.length;
  }

  reset(): void {
    this.ids.length = 0;
    this.points = 0;
  }

  /** Room for `n` more points. */
  reserve(n: number): void {
    const need = this.points + n;
    if (need <= this.ts.length) return;
    let cap = this.ts.length * 2;
    while (cap < need) cap *= 2;
    const ts = new Float64Array(cap);
    ts.set(this.ts.subarray(0, this.points));
    this.ts = ts;
    const values = new Float64Array(cap);
    values.set(this.values.subarray(0, this.points));
    this.values = values;
  }

  entry(id: string, count: number): void {
    const k = this.ids.length;
    if (k === this.counts.length) {
      const c = new Uint32Array(k * 2);
      c.set(this.counts);
      this.counts = c;
    }
    this.counts[k] = count;
    this.ids.push(id);
  }
}

/** A batch's points by type, for one batch at a time. */
export class DataColumns {
  readonly gauge = new TypeColumns();
  readonly counter = new TypeColumns();

  get points(): number {
    return this.gauge.points + this.counter.points;
  }

  reset(): void {
    this.gauge.reset();
    this.counter.reset();
  }

  /** Bytes of the arrays kept for reuse. */
  get bytes(): number {
    const of = (c: TypeColumns) => c.ts.byteLength + c.values.byteLength + c.counts.byteLength;
    return of(this.gauge) + of(this.counter);
  }
}

/** Record kinds by record id (a record's id less 0xe000, as cbor-x numbers them). */
const NONE = 0;
const WRITE = 1;
const POINT = 2;
/** Record ids read here: cbor-x's own start at 0xe000 and stay far below this. */
const MAX_RECORDS = 0x1000;
const RECORD_BASE = 0xe000;
/** cbor-x's tag of a record defined in place: [id, keys, ...values]. */
const RECORD_INLINE = 0xdfff;

const utf8 = new TextDecoder("utf-8", { fatal: true });
const enc = new TextEncoder();
const KEY = { gauge: enc.encode("gauge"), counter: enc.encode("counter") };
/** A write record's keys (fields 0, 1, 2) and a point record's (0, 1). */
const WRITE_KEYS = ["type", "id", "points"].map((k) => enc.encode(k));
const POINT_KEYS = ["timestamp", "value"].map((k) => enc.encode(k));

const EMPTY: Uint8Array = new Uint8Array(0);
class Fallback extends Error {}
const FALLBACK = new Fallback();

/**
 * Reads chunks into columns; one per decoding site (it keeps the ids it has seen and scratch for
 * the records' shapes). Not reentrant: a decode runs to its end synchronously.
 */
export class ChunkColumnsReader {
  private readonly ids = new BytesMap<string>(50_000);
  /** Per record id: its kind, and for each the position of the fields in the record's order. */
  private readonly kinds = new Uint8Array(MAX_RECORDS);
  /** Write records: index of type, id and points; point records: of timestamp and value. */
  private readonly order = new Uint8Array(MAX_RECORDS * 3);
  private readonly defined: number[] = [];
  private buf = EMPTY;
  private view: DataView = new DataView(new ArrayBuffer(0));
  private pos = 0;
  private end = 0;
  private markers = false;

  /**
   * Adds the chunk's points to `out`; false when the chunk is not in the shape read here (what
   * `out` holds is then incomplete: reset it and decode the batch the general way).
   */
  read(bytes: Uint8Array, markers: boolean, out: DataColumns): boolean {
    this.buf = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.pos = 0;
    this.end = bytes.length;
    this.markers = markers;
    try {
      const n = this.arrayHeader();
      if (n === 0) return false;
      for (let i = 0; i < n; i++) this.write(out);
      return this.pos === this.end;
    } catch (e) {
      if (e instanceof Fallback || e instanceof RangeError) return false;
      throw e;
    } finally {
      for (const r of this.defined) this.kinds[r] = NONE;
      this.defined.length = 0;
      this.buf = EMPTY;
    }
  }

  private byte(): number {
    if (this.pos >= this.end) throw FALLBACK;
    return this.buf[this.pos++]!;
  }

  /** The argument of an initial byte of major type `major` (lengths, small integers), at most 32 bits. */
  private arg(major: number): number {
    const b = this.byte();
    if (b >> 5 !== major) throw FALLBACK;
    const info = b & 0x1f;
    if (info < 24) return info;
    const p = this.pos;
    if (info === 24) {
      this.pos += 1;
      return this.view.getUint8(p);
    }
    if (info === 25) {
      this.pos += 2;
      return this.view.getUint16(p);
    }
    if (info === 26) {
      this.pos += 4;
      return this.view.getUint32(p);
    }
    throw FALLBACK;
  }

  private arrayHeader(): number {
    const n = this.arg(4);
    // Each element takes a byte at least (cbor-x refuses longer arrays the same way).
    if (n > this.end - this.pos) throw FALLBACK;
    return n;
  }

  /** Reads a text string's header and skips its bytes: they lie at [pos - length, pos). */
  private text(): number {
    const n = this.arg(3);
    if (n > this.end - this.pos) throw FALLBACK;
    this.pos += n;
    return n;
  }

  /** Whether the text string just read (`n` bytes) is `key`. */
  private was(n: number, key: Uint8Array): boolean {
    if (n !== key.length) return false;
    const s = this.pos - n;
    for (let i = 0; i < n; i++) if (this.buf[s + i] !== key[i]) return false;
    return true;
  }

  /**
   * A record's head: a reference to one defined before in the chunk (of kind `kind`), or a
   * definition in place of that kind. Returns the record id; its values follow.
   */
  private record(kind: number): number {
    const tag = this.arg(6);
    if (tag === RECORD_INLINE) {
      const len = this.arrayHeader();
      const id = this.arg(0) - RECORD_BASE;
      if (id < 0 || id >= MAX_RECORDS) throw FALLBACK;
      const keys = this.arrayHeader();
      if (keys !== len - 2) throw FALLBACK;
      this.keys(id, keys, kind === WRITE ? WRITE_KEYS : POINT_KEYS);
      if (this.kinds[id] === NONE) this.defined.push(id);
      this.kinds[id] = kind;
      return id;
    }
    const id = tag - RECORD_BASE;
    if (id < 0 || id >= MAX_RECORDS || this.kinds[id] !== kind) throw FALLBACK;
    if (this.arrayHeader() !== (kind === WRITE ? WRITE_KEYS : POINT_KEYS).length) throw FALLBACK;
    return id;
  }

  /** A record's keys: exactly `names`, each once, in any order; their places kept by field. */
  private keys(id: number, n: number, names: Uint8Array[]): void {
    if (n !== names.length) throw FALLBACK;
    let seen = 0;
    for (let i = 0; i < n; i++) {
      const len = this.text();
      const f = names.findIndex((k) => this.was(len, k));
      if (f < 0 || seen & (1 << f)) throw FALLBACK;
      seen |= 1 << f;
      this.order[id * 3 + f] = i;
    }
  }

  private write(out: DataColumns): void {
    const o = this.record(WRITE) * 3;
    // The fields in the record's order; points only after type and id (the agent's order).
    let cols: TypeColumns | undefined;
    let counter = false;
    let id: string | undefined;
    for (let i = 0; i < 3; i++) {
      if (i === this.order[o]) {
        const n = this.text();
        counter = this.was(n, KEY.counter);
        if (!counter && !this.was(n, KEY.gauge)) throw FALLBACK;
        cols = counter ? out.counter : out.gauge;
      } else if (i === this.order[o + 1]) {
        id = this.id();
      } else {
        if (cols === undefined || id === undefined) throw FALLBACK;
        this.points(cols, id, counter);
      }
    }
  }

  private id(): string {
    const n = this.text();
    const s = this.pos - n;
    const known = this.ids.get(this.buf, s, this.pos);
    if (known !== undefined) return known;
    let id: string;
    try {
      id = utf8.decode(this.buf.subarray(s, this.pos));
    } catch {
      throw FALLBACK;
    }
    if (!isNormalizedId(id)) throw FALLBACK;
    this.ids.set(this.buf, s, this.pos, id);
    return id;
  }

  private points(cols: TypeColumns, id: string, counter: boolean): void {
    const n = this.arrayHeader();
    if (n === 0) throw FALLBACK;
    cols.reserve(n);
    const markers = this.markers;
    for (let k = 0; k < n; k++) {
      const r = this.record(POINT);
      let t: number;
      let v: number;
      if (this.order[r * 3] === 0) {
        t = this.number();
        v = this.number();
      } else {
        v = this.number();
        t = this.number();
      }
      if (!Number.isSafeInteger(t) || !timestampInRange(t)) throw FALLBACK;
      // normalized.ts's checks of a value: a gauge finite, a counter a safe integer; NaN markers.
      if (counter ? !Number.isSafeInteger(v) : !Number.isFinite(v)) {
        if (!(markers && Number.isNaN(v))) throw FALLBACK;
      }
      cols.ts[cols.points] = t;
      cols.values[cols.points++] = v;
    }
    cols.entry(id, n);
  }

  /** An integer of at most 32 bits or a float64, as cbor-x decodes it. */
  private number(): number {
    const b = this.byte();
    const major = b >> 5;
    const info = b & 0x1f;
    if (major === 7) {
      if (info !== 27) throw FALLBACK;
      const v = this.view.getFloat64(this.pos);
      this.pos += 8;
      return v;
    }
    if (major > 1) throw FALLBACK;
    this.pos--;
    const n = this.arg(major);
    return major === 0 ? n : -1 - n;
  }
}
