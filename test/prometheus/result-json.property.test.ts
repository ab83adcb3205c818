/**
 * The byte-level JSON encoder of query results against the straightforward one (formatSampleValue,
 * formatTimestamp and JSON.stringify), on random values, timestamps, labels and result shapes.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatSampleValue, formatTimestamp } from "../../src/promql/format.ts";
import { labelsFromRecord, labelsToRecord } from "../../src/promql/labels.ts";
import type { QueryResult } from "../../src/promql/query.ts";
import { JsonBytes } from "../../src/prometheus/json-bytes.ts";
import { successChunks } from "../../src/prometheus/result-json.ts";
import { copiesAtWrite, respondResult, spareAnswerChunks } from "../../src/http/prometheus/respond.ts";
import { Hono } from "hono";
import { connect } from "node:net";

const text = (w: JsonBytes) => Buffer.concat(w.end()).toString("utf8");

const anyNumber = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.maxSafeInteger(),
  fc.constantFrom(0, -0, 2 ** 53, -(2 ** 53), 2 ** 53 - 1, 1e21, 1e-7, 123456789012345680000, Number.MIN_VALUE, Number.MAX_VALUE),
  fc.integer({ min: -1e6, max: 1e6 }).map((n) => n / 300),
);

/** Prometheus' serialization written the plain way (the reference). */
function reference(r: QueryResult): string {
  const point = (t: number, v: number) => `[${formatTimestamp(t)},"${formatSampleValue(v)}"]`;
  const metric = (l: Parameters<typeof labelsToRecord>[0]) => JSON.stringify(labelsToRecord(l));
  let result: string;
  switch (r.resultType) {
    case "scalar":
      result = point(r.result.t, r.result.v);
      break;
    case "string":
      result = `[${formatTimestamp(r.result.t)},${JSON.stringify(r.result.v)}]`;
      break;
    case "vector":
      result = `[${r.result.map((s) => `{"metric":${metric(s.labels)},"value":${point(s.t, s.v)}}`).join(",")}]`;
      break;
    case "matrix":
      result = `[${r.result.map((s) => `{"metric":${metric(s.labels)},"values":[${Array.from(s.ts, (t, i) => point(t, s.vals[i]!)).join(",")}]}`).join(",")}]`;
  }
  return `{"status":"success","data":{"resultType":"${r.resultType}","result":${result}}}`;
}

const labels = fc.dictionary(fc.constantFrom("__name__", "host", "job", "ünïcode"), fc.string({ unit: "grapheme", maxLength: 6 }), { maxKeys: 3 }).map(labelsFromRecord);
const times = fc.integer({ min: -(2 ** 45), max: 2 ** 45 });
const matrix = fc.array(
  fc.record({ labels, points: fc.array(fc.tuple(times, anyNumber), { maxLength: 30 }) }).map((s) => ({
    labels: s.labels,
    ts: Float64Array.from(s.points, (p) => p[0]),
    vals: Float64Array.from(s.points, (p) => p[1]),
  })),
  { maxLength: 6 },
);
/**
 * Series of a range query share one time column, whole or as views of the steps they have
 * values at (as rangeQuery returns them); some have a copy, and some a view into a buffer that
 * holds other data too (as raw series of an instant query's matrix can).
 */
const sharedColumn = fc
  .record({
    ts: fc.array(times, { maxLength: 20 }),
    series: fc.array(fc.tuple(labels, fc.array(anyNumber, { minLength: 20, maxLength: 20 }), fc.nat(), fc.nat(), fc.nat(4)), { maxLength: 6 }),
  })
  .map(({ ts, series }) => {
    const col = Float64Array.from(ts);
    const big = new Float64Array(col.length * 4 + 100).fill(12345);
    big.set(col, 70);
    return series.map(([l, vs, a, b, kind]) => {
      const from = col.length ? a % col.length : 0;
      const to = from + (col.length ? b % (col.length - from + 1) : 0);
      const t = [col, col.subarray(from, to), col.slice(), big.subarray(70 + from, 70 + to), col.subarray(from)][kind]!;
      return { labels: l, ts: t, vals: Float64Array.from(vs.slice(0, t.length)) };
    });
  });
const result: fc.Arbitrary<QueryResult> = fc.oneof(
  matrix.map((result) => ({ resultType: "matrix" as const, result })),
  sharedColumn.map((result) => ({ resultType: "matrix" as const, result })),
  fc.array(fc.record({ labels, t: times, v: anyNumber }), { maxLength: 5 }).map((result) => ({ resultType: "vector" as const, result })),
  fc.record({ t: times, v: anyNumber }).map((result) => ({ resultType: "scalar" as const, result })),
  fc.record({ t: times, v: fc.string({ unit: "grapheme" }) }).map((result) => ({ resultType: "string" as const, result })),
);

/** 24 h of one-minute steps, shared by the large matrices below. */
const STEPS = Float64Array.from({ length: 1441 }, (_, i) => 1_700_000_000_000 + i * 60_000);

/** A matrix of `series` series over STEPS, series k named m and on host hk. */
const largeMatrix = (series: number): QueryResult => ({
  resultType: "matrix",
  result: Array.from({ length: series }, (_, k) => ({ labels: labelsFromRecord({ __name__: "m", host: `h${k}` }), ts: STEPS, vals: STEPS.map((_, i) => k * 1000 + i / 7) })),
});

describe("JSON bytes of query results", () => {
  it("write sample values as formatSampleValue does", () => {
    fc.assert(
      fc.property(anyNumber, (v) => {
        const w = new JsonBytes(16);
        w.sampleValue(v);
        expect(text(w)).toBe(formatSampleValue(v));
      }),
      { numRuns: 20_000 },
    );
  });

  it("write timestamps as formatTimestamp does", () => {
    fc.assert(
      fc.property(fc.oneof(times, fc.double({ min: -1e15, max: 1e15, noNaN: true }), fc.constantFrom(-0.4, -1.5, 2.5, -999.5, 1e300)), (t) => {
        const w = new JsonBytes(16);
        w.timestamp(t);
        expect(text(w)).toBe(formatTimestamp(t));
      }),
      { numRuns: 20_000 },
    );
  });

  it("encode whole results byte for byte as the plain serialization, whatever the chunk size", () => {
    fc.assert(
      fc.property(result, fc.integer({ min: 8, max: 4096 }), (r, chunk) => {
        const json = Buffer.concat([...successChunks(r, chunk)]).toString("utf8");
        expect(json).toBe(reference(r));
        expect(JSON.parse(json).status).toBe("success");
      }),
      { numRuns: 2000 },
    );
  });

  it("answer a large range query as a stream and a small one whole, the same JSON", async () => {
    const app = new Hono();
    const results: Record<string, QueryResult> = {};
    app.get("/:name", (c) => respondResult(c, results[c.req.param("name")]!));
    results.large = largeMatrix(400);
    results.small = { resultType: "vector", result: [{ labels: labelsFromRecord({ job: "x" }), t: 1000, v: 1.5 }] };
    for (const name of ["large", "small"]) {
      const res = await app.request(`/${name}`);
      const body = await res.text();
      expect(res.headers.get("content-type")).toBe("application/json");
      // Compared as a boolean: a diff of 18 MB strings is of no use.
      const ref = reference(results[name]!); let d = 0; while (d < ref.length && body[d] === ref[d]) d++; expect({ name, len: body.length, d }).toEqual({ name, len: ref.length, d: ref.length });
    }
    expect(reference(results.large!).length).toBeGreaterThan(4 * 256 * 1024);
  });

  it("reuse a chunk's buffer only once it was handed back, whatever the chunk size", () => {
    fc.assert(
      fc.property(result, fc.integer({ min: 8, max: 4096 }), (r, chunk) => {
        const spare: Uint8Array[] = [];
        const buffers = new Set<ArrayBufferLike>();
        let reused = 0;
        const parts: string[] = [];
        for (const c of successChunks(r, chunk, spare)) {
          // Read before handing back: what a sink that copies at write sees.
          parts.push(Buffer.from(c).toString("utf8"));
          if (buffers.has(c.buffer)) reused++;
          buffers.add(c.buffer);
          spare.push(new Uint8Array(c.buffer));
        }
        expect(parts.join("")).toBe(reference(r));
        expect(reused + buffers.size).toBe(parts.length);
      }),
      { numRuns: 500 },
    );
    // A large matrix (chunks handed out series by series) goes through a few buffers.
    const large: QueryResult = { resultType: "matrix", result: Array.from({ length: 300 }, (_, k) => ({ labels: labelsFromRecord({ host: `h${k}` }), ts: STEPS, vals: STEPS.map((_, i) => k + i / 7) })) };
    const spare: Uint8Array[] = [];
    const buffers = new Set<ArrayBufferLike>();
    let n = 0;
    for (const c of successChunks(large, undefined, spare)) {
      buffers.add(c.buffer);
      spare.push(new Uint8Array(c.buffer));
      n++;
    }
    expect(n).toBeGreaterThan(40);
    expect(buffers.size).toBeLessThanOrEqual(2);
  });

  it("send a large answer through the server's sink with reused buffers, the same JSON", async () => {
    const app = new Hono();
    const large = largeMatrix(600);
    let sinks = 0;
    app.get("/large", (c) => respondResult(c, large));
    // The server's controller is recognised (a reader's is not: the test above reads with text(),
    // which keeps every chunk, and would see later chunks' bytes in earlier places).
    app.get("/probe", () => new Response(new ReadableStream({ type: "direct", pull(ctl: object) { if (copiesAtWrite(ctl)) sinks++; (ctl as { close(): void }).close(); } } as never)));
    const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: app.fetch });
    try {
      await (await fetch(`http://127.0.0.1:${server.port}/probe`)).text();
      expect(sinks).toBe(1);
      const body = await (await fetch(`http://127.0.0.1:${server.port}/large`)).text();
      const ref = reference(large);
      let d = 0;
      while (d < ref.length && body[d] === ref[d]) d++;
      expect({ len: body.length, d }).toEqual({ len: ref.length, d: ref.length });
      expect(ref.length).toBeGreaterThan(40 * 256 * 1024);
    } finally {
      server.stop(true);
    }
    let readers = 0;
    await new Response(new ReadableStream({ type: "direct", pull(ctl: object) { if (copiesAtWrite(ctl)) readers++; (ctl as { close(): void }).close(); } } as never)).text();
    expect(readers).toBe(0);
  });

  it("encode a large answer no faster than the client takes it (the sink does not buffer it whole)", async () => {
    const app = new Hono();
    const large = largeMatrix(1500);
    const size = reference(large).length;
    // Far more than the loopback socket's buffers hold (a few MB).
    expect(size).toBeGreaterThan(40 * 1024 * 1024);
    let answeredAt = 0;
    app.get("/large", (c) => respondResult(c, large, () => (answeredAt = performance.now())));
    const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: app.fetch });
    const socket = connect(server.port ?? 0, "127.0.0.1");
    try {
      let received = 0;
      let held = false;
      // The client stops reading once the answer has begun (a fixed wait instead let a fast
      // machine encode and send all of it before the pause).
      const begun = new Promise<void>((resolve) =>
        socket.on("data", (b: Buffer) => {
          received += b.length;
          if (received >= 256 * 1024 && !held) {
            held = true;
            socket.pause();
            resolve();
          }
        }),
      );
      socket.write("GET /large HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
      await begun;
      // The client reads nothing for a while: the encoder waits for the socket.
      const pausedAt = received;
      await new Promise((r) => setTimeout(r, 1500));
      expect(answeredAt).toBe(0);
      expect(received - pausedAt).toBeLessThan(size / 4);
      socket.resume();
      await new Promise((r) => socket.on("end", r));
      expect(answeredAt).toBeGreaterThan(0);
      expect(received).toBeGreaterThan(size);
    } finally {
      socket.destroy();
      server.stop(true);
    }
  });

  it("finish a large answer whose client went away (its result is not held by a wait that never ends)", async () => {
    const app = new Hono();
    const large = largeMatrix(1500);
    let answered = false;
    app.get("/large", (c) => respondResult(c, large, () => (answered = true)));
    const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: app.fetch });
    const socket = connect(server.port ?? 0, "127.0.0.1");
    try {
      let received = 0;
      socket.on("error", () => {});
      // Gone after the first 4 MB, with tens of MB still to come.
      socket.on("data", (b: Buffer) => {
        received += b.length;
        if (received > 4 * 1024 * 1024) socket.destroy();
      });
      socket.write("GET /large HTTP/1.1\r\nHost: x\r\n\r\n");
      for (let waited = 0; !answered && waited < 5000; waited += 50) await new Promise((r) => setTimeout(r, 50));
      expect(answered).toBe(true);
      expect(received).toBeLessThan(reference(large).length / 2);
    } finally {
      socket.destroy();
      server.stop(true);
    }
  });

  it("rely on a Response made from a typed array holding a copy of its bytes (respondResult reuses the array at once)", async () => {
    const bytes = new Uint8Array(64).fill(65);
    const res = new Response(bytes.subarray(0, 16));
    bytes.fill(66);
    expect(await res.text()).toBe("A".repeat(16));
  });

  it("give answers made at the same time their own JSON, through a few buffers kept from answer to answer", async () => {
    const app = new Hono();
    const results: QueryResult[] = Array.from({ length: 60 }, (_, k): QueryResult =>
      k % 20 === 7
        ? { resultType: "matrix", result: Array.from({ length: 60 }, (_, j) => ({ labels: labelsFromRecord({ host: `h${j}`, k: String(k) }), ts: STEPS, vals: STEPS.map((_, i) => k * j + i / 3) })) }
        : { resultType: "vector", result: Array.from({ length: 1 + (k % 5) }, (_, j) => ({ labels: labelsFromRecord({ job: `j${k}`, i: String(j) }), t: 1000 + k, v: k * 10 + j / 7 })) },
    );
    app.get("/:k", (c) => respondResult(c, results[Number(c.req.param("k"))]!));
    const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: app.fetch });
    try {
      for (let round = 0; round < 3; round++) {
        const bodies = await Promise.all(results.map(async (_, k) => (await fetch(`http://127.0.0.1:${server.port}/${k}`)).text()));
        for (let k = 0; k < bodies.length; k++) expect(bodies[k] === reference(results[k]!), `answer ${k}`).toBe(true);
      }
    } finally {
      server.stop(true);
    }
    // The large answers were streamed through the sink; every answer's chunk buffer came back.
    expect(reference(results[7]!).length).toBeGreaterThan(4 * 256 * 1024);
    expect(spareAnswerChunks()).toBeGreaterThan(0);
    expect(spareAnswerChunks()).toBeLessThanOrEqual(8);
  });
});
