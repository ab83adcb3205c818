/**
 * The worker thread of json-offload.ts: scans a large JSON write body, in a slot of shared
 * memory (json-slots.ts), into the slot's columns; a body the scan does not take is parsed as
 * text and, when it is in the normalized form, answered as columns of their own (their buffers
 * transferred); otherwise it answers none, and the main thread parses the body itself, which
 * explains or converts what it holds.
 */
import { fullGC } from "bun:jsc";
import { BytesMap } from "../../src/codec/bytes-map.ts";
import { capacityFor, type ColumnsOut, idOf, scanColumns } from "../../src/metrics/json-columns.ts";
import { parseColumns } from "../../src/metrics/write-columns.ts";
import type { JsonReply, JsonRequest } from "./json-offload.ts";
import { outputViews } from "./json-slots.ts";

declare const self: Worker;

/**
 * Bytes parsed as text since this thread's last full collection. That garbage (the string and
 * objects of each such body) is not the main thread's memory governor's to collect, so it keeps
 * its own heap small. A full collection of the engine alone (bun:jsc's fullGC): Bun.gc(true)
 * also hands the allocator's free pages back to the system, which the next bodies then fault in
 * again (issue 28).
 */
let parsedAsText = 0;
const COLLECT_EVERY = 4 * 1024 * 1024;

/**
 * Ids by their bytes, as codes the main thread turns back into the same strings: a body of 1,000
 * series made 1,000 strings here and 1,000 more on the main thread, every time (issue 28). At
 * most MAX_IDS, then both sides start again empty (the reply says so).
 */
const MAX_IDS = 1_000_000;
let codes = new BytesMap<number>(2 * MAX_IDS);
let ids = 0;

const utf8 = new TextDecoder();
const slots: { input: SharedArrayBuffer; output: SharedArrayBuffer }[] = [];
/** Where the scan writes each entry's id bytes (this thread's own, reused). */
let idStarts = new Uint32Array(1024);
let idEnds = new Uint32Array(1024);

self.onmessage = (ev: MessageEvent<JsonRequest>) => {
  const { id, type, slot, length } = ev.data;
  let buffers = slots[slot];
  if (ev.data.input && ev.data.output) {
    buffers = { input: ev.data.input, output: ev.data.output };
    if (slot >= 0) slots[slot] = buffers;
  }
  if (!buffers) {
    self.postMessage({ id } satisfies JsonReply);
    return;
  }
  const bytes = new Uint8Array(buffers.input, 0, length);
  const views = outputViews(buffers.output, buffers.input.byteLength);
  const room = capacityFor(length).entries;
  if (idStarts.length < room) {
    idStarts = new Uint32Array(room);
    idEnds = new Uint32Array(room);
  }
  const out: ColumnsOut = { counts: views.counts, ts: views.ts, values: views.values, idStarts, idEnds, entries: 0 };
  const points = scanColumns(type, bytes, length, out);
  if (points >= 0) {
    // Room for every id of this body before it starts: codes are never reused within a reply.
    const resetIds = ids + out.entries > (ev.data.maxIds ?? MAX_IDS);
    if (resetIds) {
      codes = new BytesMap<number>(2 * MAX_IDS);
      ids = 0;
    }
    const newIds: string[] = [];
    for (let e = 0; e < out.entries; e++) {
      let code = codes.get(bytes, idStarts[e]!, idEnds[e]!);
      if (code === undefined) {
        code = ids++;
        codes.set(bytes, idStarts[e]!, idEnds[e]!, code);
        newIds.push(idOf(bytes, out, e));
      }
      views.codes[e] = code;
    }
    const reply: JsonReply = { id, points, entries: out.entries };
    if (newIds.length > 0) reply.newIds = newIds;
    if (resetIds) reply.resetIds = true;
    self.postMessage(reply);
    return;
  }
  const cols = parseColumns(type, utf8.decode(bytes));
  parsedAsText += length;
  if (parsedAsText >= COLLECT_EVERY) {
    parsedAsText = 0;
    fullGC();
  }
  const reply: JsonReply = { id, cols };
  self.postMessage(reply, cols ? [cols.counts.buffer as ArrayBuffer, cols.ts.buffer as ArrayBuffer, cols.values.buffer as ArrayBuffer] : []);
};
