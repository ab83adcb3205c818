/**
 * One scrape's HTTP request, as Prometheus makes it: OpenMetrics or text asked for, gzip
 * accepted and inflated, redirects followed, the scrape timeout, Basic or bearer credentials read
 * from their files at each scrape (so a rotated secret is picked up), a CA file for https,
 * and the body size limit counted on the inflated body.
 */
import { readFileSync } from "node:fs";
import { OUTPOST_VERSION } from "../../../src/config/version.ts";
import { type ExpositionFormat, expositionFormat, SCRAPE_ACCEPT } from "../../../src/prometheus/exposition.ts";
import { releaseBuffer } from "../../../src/runtime/release-buffer.ts";
import { type HttpResponse, httpGet } from "./http-get.ts";

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 10;

export interface FetchSpec {
  url: string;
  timeoutMs: number;
  bodySizeLimit: number;
  basicAuth?: { username: string; passwordFile?: string };
  bearerTokenFile?: string;
  caFile?: string;
  serverName?: string;
}

export class ScrapeError extends Error {}

const readSecret = (path: string, what: string) => {
  try {
    return readFileSync(path, "utf8").trim();
  } catch (e) {
    throw new ScrapeError(`cannot read the ${what} file ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
};

export interface Fetched {
  body: string;
  format: ExpositionFormat;
  /** Bytes of the body as read (after gzip). */
  bytes: number;
}

export async function fetchTarget(s: FetchSpec): Promise<Fetched> {
  const headers: Record<string, string> = {
    Accept: SCRAPE_ACCEPT,
    "Accept-Encoding": "gzip",
    "User-Agent": `Outpost-agent/${OUTPOST_VERSION}`,
    "X-Prometheus-Scrape-Timeout-Seconds": String(s.timeoutMs / 1000),
  };
  if (s.basicAuth) {
    const password = s.basicAuth.passwordFile ? readSecret(s.basicAuth.passwordFile, "password") : "";
    headers.Authorization = `Basic ${Buffer.from(`${s.basicAuth.username}:${password}`).toString("base64")}`;
  } else if (s.bearerTokenFile) headers.Authorization = `Bearer ${readSecret(s.bearerTokenFile, "bearer token")}`;
  const tls = s.caFile || s.serverName ? { ca: s.caFile ? readSecret(s.caFile, "CA") : undefined, serverName: s.serverName } : undefined;
  const signal = AbortSignal.timeout(s.timeoutMs);
  const deadline = `context deadline exceeded (timeout ${s.timeoutMs / 1000}s)`;
  // Plain HTTP on the agent's own sockets (http-get.ts: fetch kept a body-sized buffer resident);
  // HTTPS, and a redirect to it, through fetch.
  let url = new URL(s.url);
  for (let hops = 0; url.protocol === "http:"; hops++) {
    let r: HttpResponse;
    try {
      r = await httpGet(url, headers, s.bodySizeLimit, signal);
    } catch (e) {
      throw new ScrapeError(signal.aborted ? deadline : (e as Error).message);
    }
    const location = r.headers.get("location");
    if (REDIRECTS.has(r.status) && location) {
      if (hops >= MAX_REDIRECTS) throw new ScrapeError(`stopped after ${MAX_REDIRECTS} redirects`);
      const next = new URL(location, url);
      // Credentials go to the target's host only, as Go's client (Prometheus') does.
      if (next.host !== url.host) delete headers.Authorization;
      url = next;
      continue;
    }
    if (r.status !== 200) throw new ScrapeError(`server returned HTTP status ${r.status} ${r.statusText}`.trim());
    const body = new TextDecoder().decode(r.body);
    const bytes = r.body.byteLength;
    releaseBuffer(r.body);
    return { body, format: expositionFormat(r.headers.get("content-type")), bytes };
  }
  let res: Response;
  try {
    res = await fetch(url.href, { headers, signal, redirect: "follow", tls });
  } catch (e) {
    throw new ScrapeError(signal.aborted ? `context deadline exceeded (timeout ${s.timeoutMs / 1000}s)` : (e as Error).message);
  }
  if (res.status !== 200) {
    await res.body?.cancel().catch(() => {});
    throw new ScrapeError(`server returned HTTP status ${res.status} ${res.statusText}`.trim());
  }
  // A body whose length is known and within the limit is read as text in one piece (no chunk
  // list and copy); others are counted as they come, and cut at the limit.
  const declared = res.headers.get("Content-Encoding") ? Number.NaN : Number(res.headers.get("Content-Length") ?? Number.NaN);
  if (Number.isFinite(declared) && (s.bodySizeLimit === 0 || declared <= s.bodySizeLimit)) {
    let body: string;
    try {
      body = await res.text();
    } catch (e) {
      throw new ScrapeError(signal.aborted ? `context deadline exceeded (timeout ${s.timeoutMs / 1000}s)` : `reading the body failed: ${(e as Error).message}`);
    }
    return { body, format: expositionFormat(res.headers.get("Content-Type")), bytes: declared };
  }
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  try {
    const reader = res.body!.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      if (s.bodySizeLimit > 0 && bytes > s.bodySizeLimit) {
        await reader.cancel().catch(() => {});
        throw new ScrapeError(`body size limit exceeded (${s.bodySizeLimit} bytes)`);
      }
      chunks.push(value);
    }
  } catch (e) {
    if (e instanceof ScrapeError) throw e;
    throw new ScrapeError(signal.aborted ? `context deadline exceeded (timeout ${s.timeoutMs / 1000}s)` : `reading the body failed: ${(e as Error).message}`);
  }
  const body = new TextDecoder().decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
  return { body, format: expositionFormat(res.headers.get("Content-Type")), bytes };
}
