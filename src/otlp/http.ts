/**
 * OTLP/HTTP for metrics (`POST /v1/metrics`), the part both the agent and the collector serve:
 * the body by its Content-Type (`application/x-protobuf` or `application/json`), inflated when
 * gzip (held to the body limit once inflated); the answer an ExportMetricsServiceResponse in the
 * request's encoding, with `partial_success` when points were refused; a bad request answered
 * 400 with a google.rpc.Status in that encoding (the JSON one also carries Outpost's errorMsg).
 */
import { GunzipError, gunzipLimited } from "../http/gunzip-limited.ts";
import { decodeMetricsJson } from "./json-decode.ts";
import { type MetricsRequest, OtlpDecodeError } from "./metrics-model.ts";
import { decodeMetricsProtobuf } from "./protobuf-decode.ts";

export type OtlpEncoding = "protobuf" | "json";

export class OtlpHttpError extends Error {
  constructor(
    readonly status: 400 | 413 | 415,
    message: string,
    readonly encoding: OtlpEncoding,
  ) {
    super(message);
  }
}

export function otlpEncoding(contentType: string | undefined): OtlpEncoding | undefined {
  const t = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  if (t === "application/x-protobuf" || t === "application/protobuf") return "protobuf";
  if (t === "application/json") return "json";
  return undefined;
}

/** Decodes a request body; throws OtlpHttpError (415, 413, 400) saying what is wrong. */
export function decodeOtlpMetrics(body: Uint8Array, contentType: string | undefined, contentEncoding: string | undefined, maxBytes: number): { encoding: OtlpEncoding; request: MetricsRequest } {
  const encoding = otlpEncoding(contentType);
  if (!encoding) throw new OtlpHttpError(415, `unsupported Content-Type ${JSON.stringify(contentType ?? "")}: OTLP/HTTP takes application/x-protobuf or application/json`, "json");
  let bytes = body;
  const ce = (contentEncoding ?? "").trim().toLowerCase();
  if (ce === "gzip") {
    try {
      bytes = gunzipLimited(bytes, maxBytes);
    } catch (e) {
      if (!(e instanceof GunzipError)) throw e;
      if (e.kind === "too-large") throw new OtlpHttpError(413, `gzip body decompresses to more than ${maxBytes} bytes (--max-request-body)`, encoding);
      throw new OtlpHttpError(400, "body is not valid gzip", encoding);
    }
  } else if (ce !== "" && ce !== "identity") throw new OtlpHttpError(415, `unsupported Content-Encoding ${JSON.stringify(ce)} (gzip or none)`, encoding);
  try {
    if (encoding === "protobuf") return { encoding, request: decodeMetricsProtobuf(bytes) };
    let doc: unknown;
    try {
      doc = JSON.parse(new TextDecoder().decode(bytes));
    } catch {
      throw new OtlpDecodeError("body is not valid JSON");
    }
    return { encoding, request: decodeMetricsJson(doc) };
  } catch (e) {
    if (e instanceof OtlpDecodeError) throw new OtlpHttpError(400, e.message, encoding);
    throw e;
  }
}

function varint(out: number[], v: number): void {
  let n = v;
  while (n >= 0x80) {
    out.push((n % 0x80) | 0x80);
    n = Math.floor(n / 0x80);
  }
  out.push(n);
}

function stringField(out: number[], field: number, s: string): void {
  const b = new TextEncoder().encode(s);
  out.push((field << 3) | 2);
  varint(out, b.length);
  for (const x of b) out.push(x);
}

/** The success answer: empty, or a partial success naming the refused points. */
export function otlpSuccess(encoding: OtlpEncoding, rejected: number, message: string): Response {
  if (encoding === "json") {
    const body = rejected > 0 ? { partialSuccess: { rejectedDataPoints: String(rejected), errorMessage: message } } : {};
    return new Response(JSON.stringify(body), { status: 200, headers: { "Content-Type": "application/json" } });
  }
  const out: number[] = [];
  if (rejected > 0) {
    const inner: number[] = [0x08];
    varint(inner, rejected);
    stringField(inner, 2, message);
    out.push(0x0a);
    varint(out, inner.length);
    out.push(...inner);
  }
  return new Response(new Uint8Array(out), { status: 200, headers: { "Content-Type": "application/x-protobuf" } });
}

/** google.rpc.Status codes used: INVALID_ARGUMENT, and UNAVAILABLE / RESOURCE_EXHAUSTED for the buffer or store. */
const RPC_CODE: Record<number, number> = { 400: 3, 413: 8, 415: 3, 429: 8, 500: 13, 503: 14, 507: 8 };

/** An error answer in the request's encoding (JSON when it is not known). */
export function otlpError(encoding: OtlpEncoding, status: number, message: string, headers: Record<string, string> = {}): Response {
  const code = RPC_CODE[status] ?? 2;
  if (encoding === "json") return new Response(JSON.stringify({ code, message, errorMsg: message }), { status, headers: { "Content-Type": "application/json", ...headers } });
  const out: number[] = [0x08];
  varint(out, code);
  stringField(out, 2, message);
  return new Response(new Uint8Array(out), { status, headers: { "Content-Type": "application/x-protobuf", ...headers } });
}
