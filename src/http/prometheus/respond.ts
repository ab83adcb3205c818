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

/** Bytes written to a streamed response between two waits for the socket to take them. */
const FLUSH_BYTES = 2 * 1024 * 1024;

/**
 * A query result in the success envelope, encoded straight to bytes. A body of one chunk (most
 * answers) is sent as it is. A larger one is streamed, encoded as the socket takes it: built
 * whole and sent as one Blob, a 50 MB matrix held its chunks and the Blob's copy of them at
 * once, 100 MB of a range query's peak resident size (issue 28); streamed, a chunk is garbage
 * once sent. Each chunk is a buffer of its own: a stream read by a reader rather than by the
 * server's socket keeps the chunks it was given, so a buffer written again would change them.
 */
export function respondResult(c: Context, r: QueryResult): Response {
  const headers = { "Content-Type": "application/json" };
  const chunks = successChunks(r);
  const first = chunks.next();
  if (first.done) return c.body("", 200, headers);
  const second = chunks.next();
  if (second.done) return c.body(first.value as Uint8Array<ArrayBuffer>, 200, headers);
  const stream = new ReadableStream({
    type: "direct",
    async pull(ctl: { write(b: Uint8Array): unknown; flush(): unknown; close(): void }) {
      let unflushed = 0;
      for (let n: IteratorResult<Uint8Array> = first; !n.done; n = n === first ? second : chunks.next()) {
        ctl.write(n.value);
        unflushed += n.value.length;
        if (unflushed >= FLUSH_BYTES) {
          unflushed = 0;
          await ctl.flush();
        }
      }
      ctl.close();
    },
  } as unknown as ConstructorParameters<typeof ReadableStream<Uint8Array>>[0]);
  return c.body(stream, 200, headers);
}
