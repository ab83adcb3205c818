/**
 * The point codec: one series' points (timestamps, numeric or string values, optional
 * per-point tags) as one self-describing, checksummed byte block. The format is described
 * byte by byte in docs/storage.md, "Point codec".
 */
import type { Tags } from "../metrics/model.ts";
import { ByteReader, ByteWriter, varuintSize } from "./bytes.ts";
import { planDecimal, readDecimal, writeDecimal } from "./decimal.ts";
import { readDictionary, writeDictionary } from "./dictionary.ts";
import { corrupt, PointCodecError } from "./errors.ts";
import { INT_LIMIT, readIntColumn, writeIntColumn } from "./int-column.ts";
import { readTags, writeTags } from "./tags-column.ts";
import { readXor, writeXor } from "./xor.ts";

/** One series' points in column form, in any order (the codec keeps the order it is given). */
export interface BlockPoints {
  /** Integer milliseconds (any float64 is kept exactly, but integers within ±2^50 pack best). */
  ts: Float64Array;
  /** Values of a numeric series (gauges, counters, availability codes). */
  nums?: Float64Array;
  /** Values of a string series; exactly one of nums and strs is given. */
  strs?: readonly string[];
  /** Per-point tags, index-aligned with ts; absent when no point has any. */
  tags?: readonly (Tags | undefined)[];
}

/** What decoding gives: fresh arrays (tags objects are shared between equal points, and frozen). */
export interface DecodedBlock {
  ts: Float64Array;
  nums?: Float64Array;
  strs?: string[];
  tags?: (Tags | undefined)[];
}

export const BLOCK_VERSION = 1;
/** Points a block holds at most (a day of 100 ms data; chunks hold a few thousand at most). */
export const MAX_POINTS = 2 ** 20;
export const TS_SCHEMES = ["delta", "raw"] as const;
export const VALUE_SCHEMES = ["raw", "decimal", "xor", "dictionary"] as const;
export type TimestampScheme = (typeof TS_SCHEMES)[number];
export type ValueScheme = (typeof VALUE_SCHEMES)[number];

export interface EncodeOptions {
  /**
   * Scheme for numeric values: "auto" (default) takes decimal where the values allow it, else
   * xor, else raw when xor would be larger; a named scheme is used when it can represent the
   * values (decimal falls back to xor otherwise). Named schemes are for measuring.
   */
  values?: "auto" | "raw" | "decimal" | "xor";
}

// Byte 1 of a block: bits 0-1 timestamp scheme, bits 2-4 value scheme, bit 5 tags present.
const TS_DELTA = 0;
const TS_RAW = 1;
const V_RAW = 0;
const V_DECIMAL = 1;
const V_XOR = 2;
const V_DICTIONARY = 3;
const TAGS_BIT = 0x20;

/**
 * Exceptions (non-decimal values, 9–10 bytes each) a decimal block may carry; beyond this share
 * the values are not the short decimals the scheme is for, and go to xor.
 */
const MAX_EXCEPTION_SHARE = 1 / 16;
/** Above this many bytes per value from decimal, xor is tried too (random large integers). */
const XOR_TRY_BYTES = 5;

function f64Bytes(a: Float64Array, n: number): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, n * 8);
}

function intTimestamps(ts: Float64Array, n: number): boolean {
  for (let i = 0; i < n; i++) {
    const t = ts[i]!;
    if (!Number.isInteger(t) || t > INT_LIMIT || t < -INT_LIMIT || (t === 0 && 1 / t < 0)) return false;
  }
  return true;
}

function writeTimestamps(out: ByteWriter, ts: Float64Array, n: number): number {
  if (intTimestamps(ts, n)) {
    writeIntColumn(out, ts, n, 1);
    return TS_DELTA;
  }
  out.bytes(f64Bytes(ts, n));
  return TS_RAW;
}

/**
 * Writes the values in the scheme chosen by `scheme`; returns the scheme used. In "auto",
 * decimal is kept whenever it applies: on host metrics xor was smaller in under 1 % of the
 * decimal-eligible blocks of 60 points, by 1–3 %, and in none of 360 or 1,024 points
 * (bench/codec.ts), so xor is tried as well only when decimal comes out large (random
 * integers). Raw float64 is the floor.
 */
export function writeNumbers(out: ByteWriter, v: Float64Array, n: number, scheme: EncodeOptions["values"]): number {
  const start = out.pos;
  if (scheme !== "raw") {
    if (scheme !== "xor") {
      const plan = planDecimal(v, n, Math.floor(n * MAX_EXCEPTION_SHARE));
      if (plan) {
        writeDecimal(out, v, n, plan);
        if (scheme === "decimal" || out.pos - start <= n * XOR_TRY_BYTES) return V_DECIMAL;
        const decimalEnd = out.pos;
        const decimal = out.buf.slice(start, decimalEnd);
        out.pos = start;
        writeXor(out, v, n);
        if (out.pos - start < decimal.length) return V_XOR;
        out.pos = start;
        out.bytes(decimal);
        return V_DECIMAL;
      }
    }
    writeXor(out, v, n);
    if (out.pos - start <= n * 8) return V_XOR;
    out.pos = start;
  }
  out.bytes(f64Bytes(v, n));
  return V_RAW;
}

/** Encodes the points into one block. Throws TypeError on inconsistent columns. */
export function encodePoints(p: BlockPoints, opts: EncodeOptions = {}): Uint8Array<ArrayBuffer> {
  const n = p.ts.length;
  if ((p.nums === undefined) === (p.strs === undefined)) throw new TypeError("a block holds either numeric or string values");
  const values = p.nums ?? p.strs!;
  if (values.length !== n) throw new TypeError(`${n} timestamps but ${values.length} values`);
  if (n > MAX_POINTS) throw new TypeError(`${n} points is more than a block holds (${MAX_POINTS})`);
  if (p.tags && p.tags.length !== n) throw new TypeError(`${n} timestamps but ${p.tags.length} tag entries`);
  const tags = p.tags?.some((t) => t !== undefined) ? p.tags : undefined;

  // The body is built in a reused writer and copied once into a block of its exact size.
  const body = scratchBody;
  body.pos = 0;
  body.ensure(64 + n * 2);
  body.varuint(n);
  let layout = writeTimestamps(body, p.ts, n);
  if (p.nums) layout |= writeNumbers(body, p.nums, n, opts.values ?? "auto") << 2;
  else {
    const strs = p.strs!;
    writeDictionary(body, n, (i) => {
      const s = strs[i];
      if (typeof s !== "string") throw new TypeError(`value ${i} of a string block is not a string`);
      return s;
    });
    layout |= V_DICTIONARY << 2;
  }
  if (tags) {
    writeTags(body, tags, n);
    layout |= TAGS_BIT;
  }

  const bodyBytes = body.finish();
  let total = 2 + bodyBytes.length + 4;
  total += varuintSize(total + varuintSize(total));
  const out = new ByteWriter(total);
  out.byte(BLOCK_VERSION);
  out.byte(layout);
  out.varuint(total);
  out.bytes(bodyBytes);
  out.u32(Bun.hash.crc32(out.buf.subarray(0, out.pos)));
  if (out.pos !== total) throw new Error(`point block size ${out.pos} ≠ ${total}`);
  if (body.buf.length > SCRATCH_KEEP_BYTES) scratchBody = new ByteWriter(4096);
  return out.buf;
}

/**
 * The writer every encodePoints call builds its body in (encoding is synchronous): a new one
 * per block, grown by doubling, left three buffers per chunk to the garbage collector, about
 * 50 MB for a sealing round of 1,000 chunks of 2,000 points (issue 16). One that grew for a very
 * large block is not kept.
 */
let scratchBody = new ByteWriter(4096);
const SCRATCH_KEEP_BYTES = 256 * 1024;

/** The header of a verified block: what it holds, without decoding the points. */
export interface BlockInfo {
  version: number;
  points: number;
  tsScheme: TimestampScheme;
  valueScheme: ValueScheme;
  /** Strings (value scheme dictionary) rather than numbers. */
  strings: boolean;
  tags: boolean;
  bytes: number;
}

const hex = (x: number) => `0x${x.toString(16).padStart(8, "0")}`;

/** Checks version, length and checksum; returns the header and a reader positioned on the timestamps. */
function open(bytes: Uint8Array): { r: ByteReader; info: BlockInfo } {
  if (bytes.length < 8) corrupt(`${bytes.length} bytes is too short for a block`);
  const version = bytes[0]!;
  if (version !== BLOCK_VERSION) throw new PointCodecError(`unsupported point block version ${version} (this program reads version ${BLOCK_VERSION})`);
  const head = new ByteReader(bytes, 2, bytes.length);
  const total = head.varuint();
  if (total !== bytes.length) corrupt(`the header says ${total} bytes but the block has ${bytes.length} (truncated or extended)`);
  const end = bytes.length - 4;
  const stored = new ByteReader(bytes, end, bytes.length).u32();
  const actual = Bun.hash.crc32(bytes.subarray(0, end));
  if (stored !== actual) corrupt(`checksum mismatch (stored ${hex(stored)}, computed ${hex(actual)})`);
  const layout = bytes[1]!;
  const tsScheme = TS_SCHEMES[layout & 3];
  const valueScheme = VALUE_SCHEMES[(layout >>> 2) & 7];
  if (tsScheme === undefined || valueScheme === undefined || layout & 0xc0) corrupt(`layout byte ${layout}`);
  const r = new ByteReader(bytes, head.pos, end);
  const points = r.varuint();
  if (points > MAX_POINTS) corrupt(`${points} points, more than a block holds`);
  return {
    r,
    info: { version, points, tsScheme, valueScheme, strings: valueScheme === "dictionary", tags: (layout & TAGS_BIT) !== 0, bytes: bytes.length },
  };
}

function readRawF64(r: ByteReader, out: Float64Array): void {
  new Uint8Array(out.buffer, out.byteOffset, out.byteLength).set(r.take(out.length * 8));
}

/** Reads n values written by writeNumbers in `scheme` (the number it returned) into out[0..n). */
export function readNumbers(r: ByteReader, scheme: number, n: number, out: Float64Array): void {
  if (scheme === V_RAW) readRawF64(r, out.subarray(0, n));
  else if (scheme === V_DECIMAL) readDecimal(r, n, out);
  else if (scheme === V_XOR) readXor(r, n, out);
  else corrupt(`number scheme ${scheme}`);
}

/** Reads the columns after the header; `ts` and `nums` have room for exactly the block's points. */
function readColumns(r: ByteReader, info: BlockInfo, ts: Float64Array, nums: Float64Array | undefined): { strs?: string[]; tags?: (Tags | undefined)[] } {
  const n = info.points;
  if (info.tsScheme === "delta") readIntColumn(r, n, ts);
  else readRawF64(r, ts);
  const rest: { strs?: string[]; tags?: (Tags | undefined)[] } = {};
  switch (info.valueScheme) {
    case "raw":
    case "decimal":
    case "xor":
      readNumbers(r, VALUE_SCHEMES.indexOf(info.valueScheme), n, nums!);
      break;
    case "dictionary": {
      const { entries, idx } = readDictionary(r, n);
      const strs: string[] = new Array(n);
      for (let i = 0; i < n; i++) {
        const j = idx[i]!;
        if (j === 0) corrupt("string point without a value");
        strs[i] = entries[j - 1]!;
      }
      rest.strs = strs;
      break;
    }
  }
  if (info.tags) rest.tags = readTags(r, n);
  if (r.pos !== r.end) corrupt(`${r.end - r.pos} bytes left after the points`);
  return rest;
}

/** Decodes a block; throws PointCodecError when it is corrupt, truncated or of another version. */
export function decodePoints(bytes: Uint8Array): DecodedBlock {
  const { r, info } = open(bytes);
  const n = info.points;
  // One allocation for both numeric columns: allocating typed arrays costs as much as decoding them.
  const buf = new ArrayBuffer(info.strings ? n * 8 : n * 16);
  const ts = new Float64Array(buf, 0, n);
  const nums = info.strings ? undefined : new Float64Array(buf, n * 8, n);
  const rest = readColumns(r, info, ts, nums);
  const out: DecodedBlock = { ts };
  if (nums) out.nums = nums;
  if (rest.strs) out.strs = rest.strs;
  if (rest.tags) out.tags = rest.tags;
  return out;
}

/**
 * Decodes a numeric block into ts[at..) and nums[at..) (a range read can decode all its chunks
 * into one pair of arrays); returns the number of points and their tags, if any. Throws
 * PointCodecError as decodePoints does, and RangeError when the arrays have no room.
 */
export function decodePointsInto(bytes: Uint8Array, ts: Float64Array, nums: Float64Array, at: number): { points: number; tags?: (Tags | undefined)[] } {
  const { r, info } = open(bytes);
  const n = info.points;
  if (info.strings) throw new TypeError("decodePointsInto takes numeric blocks; this one holds strings");
  if (at < 0 || at + n > ts.length || at + n > nums.length) throw new RangeError(`no room for ${n} points at ${at}`);
  const { tags } = readColumns(r, info, ts.subarray(at, at + n), nums.subarray(at, at + n));
  return tags ? { points: n, tags } : { points: n };
}

/** The header of a block after verifying its checksum (cheap: the points are not decoded). */
export function inspectBlock(bytes: Uint8Array): BlockInfo {
  return open(bytes).info;
}
