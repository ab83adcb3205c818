/**
 * The worker thread of remote-write-offload.ts: uncompresses a remote-write body and decodes it
 * into columns (src/prometheus/remote-write-columns.ts), each series as a code of this thread's
 * dictionary of label bytes; the label bytes of codes it adds are sent along, in code order, and
 * the main thread maps them to its series. Anything the decode does not take (a malformed body,
 * a bad timestamp, a series without labels) is answered "not columns": the main thread then
 * decodes the body itself and answers as it always did.
 */
import { BytesMap } from "../../src/codec/bytes-map.ts";
import { acceptedTimestamp } from "../../src/metrics/limits.ts";
import { uncompressRemoteWrite } from "../../src/prometheus/remote-write.ts";
import { decodeWriteColumns, type MappedSeries, SampleColumns } from "../../src/prometheus/remote-write-columns.ts";
import { SnappyScratch } from "../../src/prometheus/snappy.ts";
import { outputBytes, outputViews, type RemoteWriteReply, type RemoteWriteRequest } from "./remote-write-wire.ts";

declare const self: Worker;

interface Coded extends MappedSeries {
  readonly code: number;
}

/** The dictionary: codes numbered from 0 in the order met, reset when the main thread says (a new epoch). */
let epoch = -1;
let codes = new BytesMap<Coded>(1);
let next = 0;
let hardLimit = 0;
/** The label bytes of the codes this body added, end to end, and where each ends. */
let keys = new Uint8Array(64 * 1024);
let keysUsed = 0;
const ends: number[] = [];

const scratch = new SnappyScratch();
const cols = new SampleColumns<Coded>();
/** Output buffers the main thread is done with (it sends them back with later bodies). */
const spare: ArrayBuffer[] = [];

const newCode = (_labels: Record<string, string>, buf: Uint8Array, start: number, end: number): Coded | undefined => {
  // No labels (refused by the general path) or past the bound: the main thread decodes the body.
  if (start < 0 || next >= hardLimit) return undefined;
  const len = end - start;
  if (keysUsed + len > keys.length) {
    const k = new Uint8Array(Math.max(keys.length * 2, keysUsed + len));
    k.set(keys.subarray(0, keysUsed));
    keys = k;
  }
  keys.set(buf.subarray(start, end), keysUsed);
  keysUsed += len;
  ends.push(keysUsed);
  return { code: next++, lastRequest: 0 };
};

function output(n: number, points: number): ArrayBuffer {
  const need = outputBytes(n, points);
  for (let i = spare.length - 1; i >= 0; i--) {
    if (spare[i]!.byteLength >= need) return spare.splice(i, 1)[0]!;
  }
  // A little room above: the next bodies are about as large.
  return new ArrayBuffer(Math.ceil((need * 5) / 4 / 4096) * 4096);
}

self.onmessage = (ev: MessageEvent<RemoteWriteRequest>) => {
  const m = ev.data;
  if (m.spare) spare.push(...m.spare);
  if (m.epoch !== epoch) {
    epoch = m.epoch;
    // Never cleared by the map itself (newCode stops at hardLimit first): the codes must stay the main thread's.
    hardLimit = m.maxCodes;
    codes = new BytesMap<Coded>(hardLimit + 1);
    next = 0;
  }
  keysUsed = 0;
  ends.length = 0;
  let ok = false;
  try {
    const raw = uncompressRemoteWrite(new Uint8Array(m.body, 0, m.length), m.limit, scratch);
    ok = decodeWriteColumns(raw, codes, newCode, acceptedTimestamp, cols);
  } catch {
    // Not snappy, too large, or anything else: the main thread decodes it and answers the error.
    ok = false;
  }
  const reply: RemoteWriteReply = { id: m.id, epoch, body: m.body, ok: false };
  const transfer: ArrayBuffer[] = [m.body];
  if (ends.length > 0) {
    reply.newKeys = keys.slice(0, keysUsed);
    reply.newEnds = Int32Array.from(ends);
  }
  if (ok) {
    const n = cols.series.length;
    const out = output(n, cols.points);
    const v = outputViews(out, n, cols.points);
    for (let k = 0; k < n; k++) v.codes[k] = cols.series[k]!.code;
    v.counts.set(cols.counts.subarray(0, n));
    v.ts.set(cols.ts.subarray(0, cols.points));
    v.values.set(cols.values.subarray(0, cols.points));
    Object.assign(reply, { ok: true, out, entries: n, points: cols.points, skipped: cols.skipped });
    if (cols.empty.length > 0) reply.empty = Int32Array.from(cols.empty, (s) => s.code);
    transfer.push(out);
  }
  self.postMessage(reply, transfer);
};
