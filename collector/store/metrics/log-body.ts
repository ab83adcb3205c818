import { decode, encode } from "../../../src/cbor/cbor.ts";
import { AVAILABILITY_CODE, type Availability, type MetricWrite, type Tags } from "../../../src/metrics/model.ts";
import type { WriteColumns } from "../../../src/metrics/write-columns.ts";

/**
 * One committed write group as stored in `ingest_log`, in column form: encoding a few typed
 * arrays is over ten times cheaper than encoding one small array pair per series.
 * Point i of part p lies at offset(p) + i in `ts` and `nums` (NaN for string points); string
 * values are consumed in order from `strs`; point tags are sparse `[pointIndex, tags]` pairs.
 * `strParts[p]` is 1 for a part of string points: a NaN in `nums` is no longer only a string's
 * place, it is also a staleness marker (src/prometheus/staleness.ts). Bodies of version 2,
 * written before markers were stored, have no `strParts`: there a NaN is a string point.
 */
export interface LogBody {
  sids: Uint32Array;
  counts: Uint32Array;
  ts: Float64Array;
  nums: Float64Array;
  strs: string[];
  tags: [number, Tags][];
  /** Absent in version 2 bodies (see above). */
  strParts?: Uint8Array;
}

const VERSION = 3;

/** Builds the columns of the given writes; `sids[k]` is the series of `writes[k]`. */
export function buildLogBody(writes: MetricWrite[], sids: number[]): LogBody {
  let total = 0;
  for (const w of writes) total += w.points.length;
  const body: LogBody = {
    sids: Uint32Array.from(sids),
    counts: new Uint32Array(writes.length),
    ts: new Float64Array(total),
    nums: new Float64Array(total),
    strs: [],
    tags: [],
    strParts: new Uint8Array(writes.length),
  };
  let o = 0;
  for (let k = 0; k < writes.length; k++) {
    const w = writes[k]!;
    const pts = w.points;
    body.counts[k] = pts.length;
    const avail = w.type === "availability";
    const str = w.type === "string";
    if (str) body.strParts![k] = 1;
    for (let i = 0; i < pts.length; i++, o++) {
      const p = pts[i]!;
      body.ts[o] = p.timestamp;
      if (str) {
        body.nums[o] = Number.NaN;
        body.strs.push(p.value as string);
      } else body.nums[o] = avail ? AVAILABILITY_CODE[p.value as Availability] : (p.value as number);
      if (p.tags) {
        for (const _ in p.tags) {
          body.tags.push([o, p.tags]);
          break;
        }
      }
    }
  }
  return body;
}

const nonEmpty = (t: Tags) => {
  for (const _ in t) return true;
  return false;
};

/**
 * The log body of a columnar write (`sids[k]` is the series of entry k): its columns are used
 * as they are, no per-point loop; like buildLogBody, it keeps only non-empty point tags.
 */
export function columnsLogBody(c: WriteColumns, sids: number[]): LogBody {
  const tags = c.tags.length === 0 ? [] : c.tags.filter(([, t]) => nonEmpty(t));
  return { sids: Uint32Array.from(sids), counts: c.counts, ts: c.ts, nums: c.values, strs: [], tags, strParts: new Uint8Array(sids.length) };
}

/**
 * A buffer the log bodies of a store are encoded into, one after the other: each commit's bodies
 * are handed to SQLite, which copies them, so one buffer serves every commit instead of a new one
 * of 100 KB per request (issue 28: fresh memory is paid in page faults).
 */
export class LogScratch {
  bytes = new Uint8Array(64 * 1024);

  /** The buffer, grown to at least `n` bytes (what it held is lost). */
  room(n: number): Uint8Array {
    if (this.bytes.length < n) this.bytes = new Uint8Array(Math.max(n, this.bytes.length * 2));
    return this.bytes;
  }
}

/** CBOR tags of typed arrays (RFC 8746; little-endian ones), as cbor-x writes them. */
const TAG_UINT8 = 64;
const TAG_UINT32_LE = 70;
const TAG_FLOAT64_LE = 86;

/**
 * The bytes of a log body. With `scratch`, a body without strings and point tags (every numeric
 * write without tags) is written into it by hand, the same bytes cbor-x writes, and the result is
 * a view of the scratch, valid until its next use; other bodies are encoded by cbor-x.
 */
export function encodeLogBody(b: LogBody, scratch?: LogScratch): Uint8Array {
  const strParts = b.strParts ?? new Uint8Array(b.sids.length);
  if (!scratch || b.strs.length > 0 || b.tags.length > 0) return encode([VERSION, b.sids, b.counts, b.ts, b.nums, b.strs, b.tags, strParts]);
  const out = scratch.room(4 + 5 * 8 + b.sids.byteLength + b.counts.byteLength + b.ts.byteLength + b.nums.byteLength + strParts.byteLength);
  let o = 0;
  out[o++] = 0x88; // an array of 8
  out[o++] = VERSION;
  o = typedArray(out, o, TAG_UINT32_LE, b.sids);
  o = typedArray(out, o, TAG_UINT32_LE, b.counts);
  o = typedArray(out, o, TAG_FLOAT64_LE, b.ts);
  o = typedArray(out, o, TAG_FLOAT64_LE, b.nums);
  out[o++] = 0x80; // strs: []
  out[o++] = 0x80; // tags: []
  return out.subarray(0, typedArray(out, o, TAG_UINT8, strParts));
}

/** A tagged byte string holding the array's bytes (its header in CBOR's shortest form). */
function typedArray(out: Uint8Array, o: number, tag: number, a: Uint8Array | Uint32Array | Float64Array): number {
  out[o++] = 0xd8;
  out[o++] = tag;
  const n = a.byteLength;
  if (n < 24) out[o++] = 0x40 + n;
  else if (n < 0x100) {
    out[o++] = 0x58;
    out[o++] = n;
  } else if (n < 0x10000) {
    out[o++] = 0x59;
    out[o++] = n >>> 8;
    out[o++] = n & 0xff;
  } else {
    out[o++] = 0x5a;
    out[o++] = n >>> 24;
    out[o++] = (n >>> 16) & 0xff;
    out[o++] = (n >>> 8) & 0xff;
    out[o++] = n & 0xff;
  }
  out.set(new Uint8Array(a.buffer, a.byteOffset, n), o);
  return o + n;
}

/**
 * Decodes a log body. With `scratch`, a body in the form encodeLogBody writes by hand (numeric,
 * no strings, no point tags: every remote-write and JSON body) is copied into the scratch's
 * columns, and the result is valid until the scratch's next use; other bodies (and all without
 * a scratch) are decoded by cbor-x into arrays of their own. Why: the replay at start decoded
 * every body of the log into fresh arrays (cbor-x copies a typed array not aligned in its
 * input), as many bytes of garbage as the log held (issue 28, docs/storage.md "Fewer bytes a series").
 */
export function decodeLogBody(bytes: Uint8Array, scratch?: LogBodyScratch): LogBody {
  const fast = scratch?.decode(bytes);
  if (fast) return fast;
  const v = decode(bytes) as [number, Uint32Array, Uint32Array, Float64Array, Float64Array, string[], [number, Tags][], Uint8Array?];
  if (v[0] === 2) return { sids: v[1], counts: v[2], ts: v[3], nums: v[4], strs: v[5], tags: v[6] };
  if (v[0] !== VERSION || !(v[7] instanceof Uint8Array) || v[7].length !== v[1].length) throw new Error(`unknown ingest log body version ${v[0]}`);
  return { sids: v[1], counts: v[2], ts: v[3], nums: v[4], strs: v[5], tags: v[6], strParts: v[7] };
}

/** The columns decodeLogBody copies bodies into, grown as needed and reused from body to body. */
export class LogBodyScratch {
  private bytes = new Uint8Array(64 * 1024);
  private readonly noStrs: string[] = [];
  private readonly noTags: [number, Tags][] = [];
  /** Where decode() read up to (its parse of a tagged byte string). */
  private at = 0;

  /** The body's columns in the scratch, or undefined when it is not in encodeLogBody's hand-written form. */
  decode(b: Uint8Array): LogBody | undefined {
    if (b.length < 2 || b[0] !== 0x88 || b[1] !== VERSION) return undefined;
    this.at = 2;
    const sids = this.tagged(b, TAG_UINT32_LE);
    const counts = sids && this.tagged(b, TAG_UINT32_LE);
    const ts = counts && this.tagged(b, TAG_FLOAT64_LE);
    const nums = ts && this.tagged(b, TAG_FLOAT64_LE);
    if (!nums || b[this.at] !== 0x80 || b[this.at + 1] !== 0x80) return undefined;
    this.at += 2;
    const parts = this.tagged(b, TAG_UINT8);
    if (!parts || this.at !== b.length) return undefined;
    const n = sids[1] / 4;
    const points = ts[1] / 8;
    if (counts[1] !== sids[1] || nums[1] !== ts[1] || parts[1] !== n || n % 1 !== 0 || points % 1 !== 0) return undefined;
    // One buffer, each column at an offset aligned for its type: sids, counts, ts, nums, parts.
    const tsAt = align8(8 * n);
    const numsAt = tsAt + 8 * points;
    const partsAt = numsAt + 8 * points;
    const size = partsAt + n;
    if (this.bytes.length < size) this.bytes = new Uint8Array(Math.max(size, this.bytes.length * 2));
    const out = this.bytes;
    out.set(b.subarray(sids[0], sids[0] + 4 * n), 0);
    out.set(b.subarray(counts[0], counts[0] + 4 * n), 4 * n);
    out.set(b.subarray(ts[0], ts[0] + 8 * points), tsAt);
    out.set(b.subarray(nums[0], nums[0] + 8 * points), numsAt);
    out.set(b.subarray(parts[0], parts[0] + n), partsAt);
    const buf = out.buffer;
    return {
      sids: new Uint32Array(buf, 0, n),
      counts: new Uint32Array(buf, 4 * n, n),
      ts: new Float64Array(buf, tsAt, points),
      nums: new Float64Array(buf, numsAt, points),
      strs: this.noStrs,
      tags: this.noTags,
      strParts: new Uint8Array(buf, partsAt, n),
    };
  }

  /** [start, length] of the tagged byte string at `at` (its tag `tag`), or undefined. */
  private tagged(b: Uint8Array, tag: number): [number, number] | undefined {
    let o = this.at;
    if (b[o] !== 0xd8 || b[o + 1] !== tag) return undefined;
    o += 2;
    const h = b[o++];
    let n: number;
    if (h === undefined || h < 0x40) return undefined;
    if (h < 0x58) n = h - 0x40;
    else if (h === 0x58) n = b[o++]!;
    else if (h === 0x59) {
      n = (b[o]! << 8) | b[o + 1]!;
      o += 2;
    } else if (h === 0x5a) {
      n = b[o]! * 0x100_0000 + ((b[o + 1]! << 16) | (b[o + 2]! << 8) | b[o + 3]!);
      o += 4;
    } else return undefined;
    if (o + n > b.length) return undefined;
    this.at = o + n;
    return [o, n];
  }
}

const align8 = (n: number) => (n + 7) & ~7;
