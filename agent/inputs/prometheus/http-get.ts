/**
 * A scrape's GET over plain HTTP on the runtime's TCP sockets (Bun.connect, which the agent's
 * MQTT client uses already) instead of fetch: fetch works on an HTTP thread of its own, which
 * kept a response buffer the size of the largest body resident after each scrape (about 1.4 MB
 * for a target of 10,000 series; docs/inputs.md, "Memory"). HTTPS targets keep fetch (its
 * certificate checks are the runtime's, tested); so does a redirect to one.
 *
 * HTTP/1.1, one request per connection (`Connection: close`, so the end of the body is the end
 * of the connection when it has no length), bodies of a Content-Length, chunked or read to the
 * close; gzip inflated. The body size limit counts the body as received and once inflated.
 */
import { GunzipError, gunzipLimited } from "../../../src/http/gunzip-limited.ts";

export interface HttpResponse {
  status: number;
  statusText: string;
  /** Header names in lower case. */
  headers: Map<string, string>;
  /** The body, inflated when it came gzipped. */
  body: Uint8Array;
}

/** The request failed (connection, protocol, limit); the message says why. */
export class HttpGetError extends Error {}

const HEAD_LIMIT = 64 * 1024;
const CRLFCRLF = Buffer.from("\r\n\r\n");

/** GET `url` (http:) with `headers`; `limit` bytes of body at most (0: none); rejects once `signal` aborts. */
export function httpGet(url: URL, headers: Record<string, string>, limit: number, signal: AbortSignal): Promise<HttpResponse> {
  const port = Number(url.port || 80);
  // A line break in a value (a credentials file, say) would start a header of its own.
  for (const [k, v] of Object.entries(headers)) if (/[\r\n]/.test(v)) return Promise.reject(new HttpGetError(`invalid value of header ${k}: a line break`));
  const lines = [`GET ${url.pathname}${url.search} HTTP/1.1`, `Host: ${url.host}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), "Connection: close", "", ""];
  const request = lines.join("\r\n");
  return new Promise<HttpResponse>((resolve, reject) => {
    const parts: Uint8Array[] = [];
    let received = 0;
    let headEnd = -1;
    let head: Omit<HttpResponse, "body"> | undefined;
    let length = -1;
    let settled = false;
    let socket: { end(): void; terminate(): void } | undefined;
    const finish = (err: Error | undefined, res?: HttpResponse) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener("abort", onAbort);
      socket?.terminate();
      if (err) reject(err);
      else resolve(res!);
    };
    const onAbort = () => finish(new HttpGetError("aborted"));
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort);
    const all = () => (parts.length === 1 ? parts[0]! : Buffer.concat(parts));
    // A body of a known length is read straight into a buffer of that size (no list of pieces and copy).
    let fixed: Uint8Array | undefined;
    let filled = 0;
    const tooLarge = () => finish(new HttpGetError(`body size limit exceeded (${limit} bytes)`));
    const complete = () => {
      if (settled) return;
      if (!head) return finish(new HttpGetError(headEnd < 0 && received === 0 ? "connection closed before a response" : "connection closed within the response head"));
      const raw = fixed ? fixed.subarray(0, filled) : length === 0 ? new Uint8Array(0) : all().subarray(headEnd);
      if (length >= 0 && raw.byteLength < length) return finish(new HttpGetError(`connection closed after ${raw.byteLength} of ${length} body bytes`));
      try {
        let body: Uint8Array = raw;
        if (/\bchunked\b/i.test(head.headers.get("transfer-encoding") ?? "")) body = dechunk(body);
        if (/^\s*(x-)?gzip\s*$/i.test(head.headers.get("content-encoding") ?? "")) body = inflate(body, limit);
        if (limit > 0 && body.byteLength > limit) throw new HttpGetError(`body size limit exceeded (${limit} bytes)`);
        finish(undefined, { ...head, body });
      } catch (e) {
        finish(e instanceof HttpGetError ? e : new HttpGetError((e as Error).message));
      }
    };
    const onData = (data: Uint8Array) => {
      if (settled) return;
      received += data.byteLength;
      if (fixed) {
        const n = Math.min(data.byteLength, fixed.byteLength - filled);
        fixed.set(n === data.byteLength ? data : data.subarray(0, n), filled);
        filled += n;
        if (filled === fixed.byteLength) complete();
        return;
      }
      parts.push(new Uint8Array(data));
      if (!head) {
        const bytes = all();
        parts.length = 0;
        parts.push(bytes);
        const at = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).indexOf(CRLFCRLF);
        if (at < 0) {
          if (received > HEAD_LIMIT) finish(new HttpGetError("response head too long"));
          return;
        }
        headEnd = at + 4;
        try {
          head = parseHead(Buffer.from(bytes.buffer, bytes.byteOffset, at).toString("latin1"));
        } catch (e) {
          return finish(e as Error);
        }
        const declared = head.headers.get("content-length");
        if (declared !== undefined && !head.headers.has("transfer-encoding")) length = /^\d+$/.test(declared.trim()) ? Number(declared) : -1;
        if (head.status === 204 || head.status === 304) length = 0;
        if (length > 0) {
          if (limit > 0 && length > (head.headers.has("content-encoding") ? 2 * limit + 65536 : limit)) return tooLarge();
          try {
            fixed = new Uint8Array(length);
          } catch {
            // Only without a limit (body_size_limit = 0) can a declared length be beyond memory.
            return finish(new HttpGetError(`cannot hold a body of ${length} bytes`));
          }
          const rest = bytes.subarray(headEnd, headEnd + length);
          fixed.set(rest);
          filled = rest.byteLength;
          parts.length = 0;
          if (filled === length) complete();
          return;
        }
        if (length === 0) return complete();
      }
      // Past the limit, reading stops; a chunked or gzipped body is checked once decoded, and
      // meanwhile read up to twice the limit (framing, incompressible data) and no further.
      const encoded = head.headers.has("content-encoding") || head.headers.has("transfer-encoding");
      if (limit > 0 && received - headEnd > (encoded ? 2 * limit + 65536 : limit)) tooLarge();
    };
    Bun.connect({
      hostname: url.hostname.replace(/^\[|\]$/g, ""),
      port,
      socket: {
        open: (s) => {
          s.write(request);
        },
        data: (_s, data) => onData(data),
        close: () => complete(),
        error: (_s, e) => finish(socketError(e)),
        connectError: (_s, e) => finish(socketError(e)),
      },
    }).then(
      (s) => {
        socket = s;
        if (settled) s.terminate();
      },
      (e: Error) => finish(socketError(e)),
    );
  });
}

/** A socket's error with its code (ECONNREFUSED, ...), as an operator searches for it. */
function socketError(e: Error): HttpGetError {
  const code = (e as NodeJS.ErrnoException).code;
  return new HttpGetError(code && !e.message.includes(code) ? `${code}: ${e.message}` : e.message);
}

function parseHead(text: string): Omit<HttpResponse, "body"> {
  const lines = text.split("\r\n");
  const m = /^HTTP\/1\.[01] (\d{3})(?: (.*))?$/.exec(lines[0]!);
  if (!m) throw new HttpGetError(`malformed HTTP response: ${JSON.stringify(lines[0]!.slice(0, 80))}`);
  const headers = new Map<string, string>();
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(":");
    if (colon <= 0) throw new HttpGetError(`malformed HTTP header: ${JSON.stringify(line.slice(0, 80))}`);
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    const had = headers.get(name);
    headers.set(name, had === undefined ? value : `${had}, ${value}`);
  }
  return { status: Number(m[1]), statusText: m[2] ?? "", headers };
}

/** The data of a chunked body (chunk extensions and trailers read past). */
export function dechunk(raw: Uint8Array): Uint8Array {
  const b = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  const out: Uint8Array[] = [];
  let pos = 0;
  for (;;) {
    const eol = b.indexOf("\r\n", pos);
    if (eol < 0) throw new HttpGetError("chunked body ends within a chunk size");
    const sizeText = b.toString("latin1", pos, eol).split(";")[0]!.trim();
    if (!/^[0-9a-fA-F]{1,8}$/.test(sizeText)) throw new HttpGetError(`malformed chunk size ${JSON.stringify(sizeText.slice(0, 20))}`);
    const size = Number.parseInt(sizeText, 16);
    if (size === 0) break;
    const start = eol + 2;
    if (start + size + 2 > b.byteLength) throw new HttpGetError("chunked body ends within a chunk");
    out.push(b.subarray(start, start + size));
    pos = start + size + 2;
  }
  return out.length === 1 ? out[0]! : Buffer.concat(out);
}

function inflate(body: Uint8Array, limit: number): Uint8Array {
  try {
    return gunzipLimited(body, limit);
  } catch (e) {
    if (!(e instanceof GunzipError)) throw e;
    if (e.kind === "too-large") throw new HttpGetError(`body size limit exceeded (${limit} bytes)`);
    throw new HttpGetError(`invalid gzip body: ${e.message}`);
  }
}
