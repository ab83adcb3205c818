/**
 * The scrape's own HTTP client (plain HTTP on Bun.connect) against a real HTTP server: bodies of
 * a length, chunked and gzipped, the body size limit, redirects, statuses, timeouts, refused
 * connections and the request headers, through fetchTarget as the scrape loop calls it.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { fetchTarget, ScrapeError } from "../../../agent/inputs/prometheus/fetch-target.ts";
import { dechunk } from "../../../agent/inputs/prometheus/http-get.ts";
import { freePort } from "../../helpers/ports.ts";

const TEXT = Array.from({ length: 3000 }, (_, i) => `m{i="${i}"} ${i}\n`).join("");
let server: ReturnType<typeof Bun.serve>;
let base: string;
let lastHeaders: Headers | undefined;
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "outpost-http-get-"));
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const path = new URL(req.url).pathname;
      lastHeaders = req.headers;
      if (path === "/plain") return new Response(TEXT, { headers: { "Content-Type": "text/plain; version=0.0.4" } });
      if (path === "/om") return new Response("a 1\n# EOF\n", { headers: { "Content-Type": "application/openmetrics-text; version=1.0.0" } });
      if (path === "/chunked") {
        const enc = new TextEncoder();
        const stream = new ReadableStream({
          async start(c) {
            for (let i = 0; i < TEXT.length; i += 10_000) {
              c.enqueue(enc.encode(TEXT.slice(i, i + 10_000)));
              await Bun.sleep(1);
            }
            c.close();
          },
        });
        return new Response(stream);
      }
      if (path === "/gzip") return new Response(gzipSync(TEXT), { headers: { "Content-Encoding": "gzip" } });
      if (path === "/redirect") return Response.redirect(`${base}/plain`, 302);
      if (path === "/loop") return Response.redirect(`${base}/loop`, 307);
      if (path === "/missing") return new Response("no", { status: 404, statusText: "Not Found" });
      if (path === "/slow") {
        await Bun.sleep(2000);
        return new Response("late 1\n");
      }
      return new Response("?", { status: 500 });
    },
  });
  base = `http://127.0.0.1:${server.port}`;
});

afterAll(() => {
  server?.stop(true);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const get = (path: string, o: { limit?: number; timeoutMs?: number; passwordFile?: string } = {}) =>
  fetchTarget({ url: `${base}${path}`, timeoutMs: o.timeoutMs ?? 5000, bodySizeLimit: o.limit ?? 0, basicAuth: o.passwordFile ? { username: "u", passwordFile: o.passwordFile } : undefined });

describe("a scrape's HTTP request (plain HTTP)", () => {
  test("a body of a known length, its format, and the request's headers", async () => {
    const r = await get("/plain");
    expect(r.body).toBe(TEXT);
    expect(r.bytes).toBe(TEXT.length);
    expect(r.format).toBe("text");
    expect(lastHeaders!.get("Accept")).toContain("application/openmetrics-text");
    expect(lastHeaders!.get("Accept-Encoding")).toBe("gzip");
    expect(lastHeaders!.get("X-Prometheus-Scrape-Timeout-Seconds")).toBe("5");
    expect(lastHeaders!.get("User-Agent")).toMatch(/^Outpost-agent\//);
    expect((await get("/om")).format).toBe("openmetrics");
  });

  test("chunked and gzipped bodies are read whole", async () => {
    expect((await get("/chunked")).body).toBe(TEXT);
    const gz = await get("/gzip");
    expect(gz.body).toBe(TEXT);
    expect(gz.bytes).toBe(TEXT.length);
  });

  test("the body size limit counts the body as sent and once inflated", async () => {
    for (const path of ["/plain", "/chunked", "/gzip"]) {
      await expect(get(path, { limit: 10_000 })).rejects.toThrow(/body size limit exceeded \(10000 bytes\)/);
      expect((await get(path, { limit: TEXT.length })).body).toBe(TEXT);
    }
  });

  test("redirects are followed (up to 10), other statuses fail the scrape", async () => {
    expect((await get("/redirect")).body).toBe(TEXT);
    await expect(get("/loop")).rejects.toThrow("stopped after 10 redirects");
    await expect(get("/missing")).rejects.toThrow("server returned HTTP status 404 Not Found");
  });

  test("a timeout, a refused connection: scrape errors that say so", async () => {
    await expect(get("/slow", { timeoutMs: 300 })).rejects.toThrow("context deadline exceeded (timeout 0.3s)");
    const dead = await freePort();
    const e = await fetchTarget({ url: `http://127.0.0.1:${dead}/metrics`, timeoutMs: 2000, bodySizeLimit: 0 }).catch((x) => x);
    expect(e).toBeInstanceOf(ScrapeError);
    expect(String(e.message)).toMatch(/ECONNREFUSED|refused/i);
  });

  test("basic auth from its password file", async () => {
    const pw = join(dir, "pw");
    writeFileSync(pw, "s3cret\n");
    await get("/plain", { passwordFile: pw });
    expect(lastHeaders!.get("Authorization")).toBe(`Basic ${Buffer.from("u:s3cret").toString("base64")}`);
    const token = join(dir, "token");
    writeFileSync(token, "abc\r\nX-Injected: 1\n");
    await expect(fetchTarget({ url: `${base}/plain`, timeoutMs: 2000, bodySizeLimit: 0, bearerTokenFile: token })).rejects.toThrow("invalid value of header Authorization: a line break");
  });

  test("chunk framing: extensions read past, a truncated body refused", () => {
    const enc = (s: string) => new TextEncoder().encode(s);
    expect(new TextDecoder().decode(dechunk(enc("3;x=y\r\nabc\r\n2\r\nde\r\n0\r\nTrailer: v\r\n\r\n")))).toBe("abcde");
    expect(() => dechunk(enc("5\r\nab"))).toThrow("chunked body ends within a chunk");
    expect(() => dechunk(enc("zz\r\nab\r\n"))).toThrow("malformed chunk size");
  });
});
