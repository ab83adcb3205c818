#!/usr/bin/env bun
/**
 * Snappy block decompression of remote-write bodies: the pure-JavaScript decoder the collector
 * uses (src/prometheus/snappy.ts; into a fresh buffer, and into the reused scratch buffer the
 * write route gives it) beside the native napi-rs addon (`snappy`, a dev dependency: the tests'
 * independent encoder) and `snappyjs` (which the collector used until issue 28). Bodies as
 * Prometheus sends them (protobuf WriteRequests, snappy-compressed): 500 and 10,000 series × 10
 * samples. Prints ms and CPU ms per body, the decoders interleaved in each round, and the ratio of
 * each one's CPU time to the native addon's.
 * Another target's addon: NAPI_RS_NATIVE_LIBRARY_PATH=… (e.g. the arm64 one under qemu-aarch64).
 */
import { compressSync, uncompressSync } from "snappy";
import SnappyJS from "snappyjs";
import { SnappyScratch, uncompressSnappy } from "../src/prometheus/snappy.ts";
import { encodeWriteRequest } from "../test/helpers/remote-write.ts";

const native = { kind: "native", uncompress: (b: Buffer) => uncompressSync(b) as Buffer };
const scratch = new SnappyScratch();
const decoders = [
  native,
  { kind: "snappyjs", uncompress: (b: Buffer) => SnappyJS.uncompress(new Uint8Array(b.buffer, b.byteOffset, b.byteLength)) },
  { kind: "javascript", uncompress: (b: Buffer) => uncompressSnappy(b) },
  { kind: "javascript, scratch", uncompress: (b: Buffer) => uncompressSnappy(b, Number.POSITIVE_INFINITY, scratch) },
];
const ROUNDS = Number(process.env.ROUNDS ?? 5);

function body(seriesCount: number): { raw: Uint8Array; compressed: Buffer } {
  const t0 = 1_700_000_000_000;
  const series = Array.from({ length: seriesCount }, (_, s) => ({
    labels: { __name__: `node_metric_${s % 40}`, instance: `host-${s % 200}:9100`, job: "node", cpu: String(s % 8) },
    samples: Array.from({ length: 10 }, (_, j) => [t0 + j * 15_000, Math.round(Math.sin(s + j) * 1e6) / 100] as [number, number]),
  }));
  const raw = encodeWriteRequest(series);
  return { raw, compressed: compressSync(Buffer.from(raw)) };
}

function measure(f: () => unknown, n: number): { ms: number; cpuMs: number } {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) f();
  const c = process.cpuUsage(c0);
  return { ms: (performance.now() - t0) / n, cpuMs: (c.user + c.system) / 1000 / n };
}

console.log(`runtime: Bun ${Bun.version} ${process.arch}`);
for (const seriesCount of [500, 10_000]) {
  const b = body(seriesCount);
  for (const d of decoders) if (Buffer.compare(Buffer.from(d.uncompress(b.compressed)), Buffer.from(b.raw)) !== 0) throw new Error(`${d.kind} decoded wrongly`);
  const n = Math.max(5, Math.round(40_000_000 / b.raw.length));
  console.log(`\n${seriesCount} series × 10 samples: ${b.raw.length} bytes of protobuf, ${b.compressed.length} compressed; ${n} bodies per round`);
  const sum: Record<string, number> = {};
  for (let round = 0; round < ROUNDS; round++) {
    for (const d of decoders) {
      measure(() => d.uncompress(b.compressed), Math.ceil(n / 10));
      const m = measure(() => d.uncompress(b.compressed), n);
      sum[d.kind] = (sum[d.kind] ?? 0) + m.cpuMs;
      console.log(`  round ${round + 1} ${d.kind.padEnd(19)} ${m.ms.toFixed(3)} ms per body, CPU ${m.cpuMs.toFixed(3)} ms`);
    }
  }
  for (const d of decoders.slice(1)) console.log(`  ${d.kind} ÷ native, CPU over ${ROUNDS} rounds: ${(sum[d.kind]! / sum.native!).toFixed(2)}×`);
}
