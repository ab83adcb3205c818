/**
 * The worker thread of json-offload.ts: parses a large JSON write body and, when it is in the
 * normalized form, answers its columns (their buffers transferred); otherwise it answers none,
 * and the main thread parses the body itself, which explains or converts what it holds.
 */
import { parseColumns } from "../../src/metrics/write-columns.ts";
import type { JsonReply, JsonRequest } from "./json-offload.ts";

declare const self: Worker;

/**
 * Characters parsed since this thread's last full collection. Its garbage (the objects of each
 * body) is not the main thread's memory governor's to collect, so it keeps its own heap small.
 * A full (synchronous) collection: only that gives the pages back to the system; an eager one
 * left the peers run's peak RSS at 224–236 MB, a full one 217–222 at no measured ingest cost.
 */
let parsed = 0;
const COLLECT_EVERY = 4 * 1024 * 1024;

self.onmessage = (ev: MessageEvent<JsonRequest>) => {
  const { id, type, text } = ev.data;
  const cols = parseColumns(type, text);
  parsed += text.length;
  if (parsed >= COLLECT_EVERY) {
    parsed = 0;
    Bun.gc(true);
  }
  const reply: JsonReply = { id, cols };
  self.postMessage(reply, cols ? [cols.counts.buffer as ArrayBuffer, cols.ts.buffer as ArrayBuffer, cols.values.buffer as ArrayBuffer] : []);
};
