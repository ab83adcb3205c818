/** Prometheus' API envelopes: `{"status":"success","data":…}` and its error types. */
import type { Context } from "hono";
import type { QueryResult } from "../../promql/query.ts";
import { successChunks } from "../../prometheus/result-json.ts";

/** Prometheus' error types, and `not_implemented` (501) for valid PromQL Outpost does not evaluate. */
export type ErrorType = "bad_data" | "execution" | "timeout" | "canceled" | "internal" | "not_found" | "unavailable" | "not_implemented";

const STATUS: Record<ErrorType, number> = { bad_data: 400, execution: 422, timeout: 503, canceled: 499, internal: 500, not_found: 404, unavailable: 503, not_implemented: 501 };

/** An error answered in Prometheus' envelope (with Outpost's `errorMsg` beside it). */
export class PromApiError extends Error {
  constructor(
    readonly type: ErrorType,
    message: string,
  ) {
    super(message);
  }
}

export const badData = (message: string) => new PromApiError("bad_data", message);

export function errorBody(type: ErrorType, message: string): { status: number; body: string } {
  return { status: STATUS[type], body: JSON.stringify({ status: "error", errorType: type, error: message, errorMsg: message }) };
}

/** `status` overrides the type's own (an ApiError's status, e.g. 507 or 415, in the envelope). */
export function respondError(c: Context, type: ErrorType, message: string, headers?: Record<string, string>, status?: number): Response {
  const e = errorBody(type, message);
  return c.body(e.body, (status ?? e.status) as 400, { "Content-Type": "application/json", ...headers });
}

/** A success envelope around already-serialized `data`. */
export function respondData(c: Context, dataJson: string, warnings: string[] = []): Response {
  const w = warnings.length ? `,"warnings":${JSON.stringify(warnings)}` : "";
  return c.body(`{"status":"success","data":${dataJson}${w}}`, 200, { "Content-Type": "application/json" });
}

/** Calls `answered` (`r` is made: the answer's memory is the response's) and returns `r`. */
function answer(r: Response, answered?: () => void): Response {
  answered?.();
  return r;
}

/** Bytes written to a streamed response between two flushes (sending what the sink holds now). */
const FLUSH_BYTES = 2 * 1024 * 1024;

/**
 * Whether a direct stream's controller is Bun's HTTP server sink, which copies (or sends) the
 * bytes given to `write` before it returns. Other consumers may keep the chunk itself: a body
 * read with `text()` holds every chunk until the end (measured on Bun 1.4).
 */
export const copiesAtWrite = (ctl: object) => /^\[object ReadableHTTPS?ResponseSinkController\]$/.test(Object.prototype.toString.call(ctl));

/** Chunk buffers kept from answer to answer: 8 of JsonBytes' 256 KiB (a larger one, made for one long text, is not kept). */
const KEPT_CHUNKS = 8;
const KEPT_CHUNK_BYTES = 256 * 1024;
const spareChunks: Uint8Array[] = [];

/** Gives a chunk's whole buffer back for the next answers (a chunk is a view of its start). */
function giveBack(chunk: Uint8Array): void {
  if (spareChunks.length < KEPT_CHUNKS && chunk.buffer.byteLength <= KEPT_CHUNK_BYTES) spareChunks.push(new Uint8Array(chunk.buffer, chunk.byteOffset));
}

/** Chunk buffers waiting for an answer (for tests). */
export const spareAnswerChunks = (): number => spareChunks.length;

/**
 * A query result in the success envelope, encoded straight to bytes. A body of one chunk (most
 * answers) is sent whole, and the chunk's buffer kept for the next answer (each answer had a
 * new 256 KiB buffer, zeroed and soon garbage: hundreds of MB a second under Grafana's small
 * queries, issue 28). A larger one is streamed, encoded as the socket takes it: built
 * whole and sent as one Blob, a 50 MB matrix held its chunks and the Blob's copy of them at
 * once, 100 MB of a range query's peak resident size (issue 28). When the server's sink takes
 * the stream, a chunk written is handed back to the encoder for the next one, so the answer
 * goes out through a few buffers instead of one new buffer per 256 KB (50 MB of garbage a
 * `rate` answer of the range bench, most of the engine's growth between collections). Any
 * other reader gets a buffer of its own per chunk: it may keep the chunks it was given.
 * `answered` is called once the answer is made (a streamed one: handed to the sink whole).
 */
export function respondResult(c: Context, r: QueryResult, answered?: () => void): Response {
  const headers = { "Content-Type": "application/json" };
  const chunks = successChunks(r, undefined, spareChunks);
  const first = chunks.next();
  if (first.done) return answer(c.body("", 200, headers), answered);
  const second = chunks.next();
  if (second.done) {
    // Bun's Response copies a typed array it is made from (test/prometheus/result-json…): the
    // chunk's buffer is free again once it is made.
    const res = c.body(first.value as Uint8Array<ArrayBuffer>, 200, headers);
    giveBack(first.value);
    return answer(res, answered);
  }
  const stream = new ReadableStream({
    type: "direct",
    async pull(ctl: { write(b: Uint8Array): unknown; flush(): unknown; close(): void }) {
      const reuse = copiesAtWrite(ctl);
      let unflushed = 0;
      for (let n: IteratorResult<Uint8Array> = first; !n.done; n = n === first ? second : chunks.next()) {
        const taken = ctl.write(n.value);
        // Written: its bytes are the sink's now.
        if (reuse) giveBack(n.value);
        // The sink's buffer is full: a promise settled once the socket has taken it. Neither
        // flush() nor a number from write waits for the client: encoding on without this wait
        // buffered a 49 MB answer whole in the sink when the client read slower (issue 28).
        if (taken instanceof Promise) await taken;
        unflushed += n.value.length;
        if (unflushed >= FLUSH_BYTES) {
          unflushed = 0;
          await ctl.flush();
        }
      }
      ctl.close();
      answered?.();
    },
  } as unknown as ConstructorParameters<typeof ReadableStream<Uint8Array>>[0]);
  return c.body(stream, 200, headers);
}
