/**
 * The worker thread of json-offload.ts: scans a large JSON write body, in a slot of shared
 * memory (json-slots.ts), into the slot's columns; a body the scan does not take is parsed as
 * text and, when it is in the normalized form, answered as columns of their own (their buffers
 * transferred); otherwise it answers none, and the main thread parses the body itself, which
 * explains or converts what it holds.
 */
import { fullGC } from "bun:jsc";
import { scanColumns } from "../../src/metrics/json-columns.ts";
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

const utf8 = new TextDecoder();
const slots: { input: SharedArrayBuffer; output: SharedArrayBuffer }[] = [];

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
  const ids: string[] = [];
  const points = scanColumns(type, bytes, length, { counts: views.counts, ts: views.ts, values: views.values, ids });
  if (points >= 0) {
    self.postMessage({ id, points, ids } satisfies JsonReply);
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
