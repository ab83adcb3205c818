#!/usr/bin/env bun
/**
 * Decoding a remote-write WriteRequest (1,000 series × 10 samples, ~250 kB): Outpost's reader
 * for the fixed schema against protobufjs, decode only and decoded to plain objects.
 */
import { decodeWriteRequest } from "../src/prometheus/remote-write.ts";
import { encodeWriteRequest, WriteRequestType } from "../test/helpers/remote-write.ts";

const series = Array.from({ length: 1000 }, (_, s) => ({
  labels: { __name__: "bench_requests_total", host: `h${s % 50}`, series: `s${s}`, job: "node" },
  samples: Array.from({ length: 10 }, (_, j) => [1_700_000_000_000 + j * 15_000, s * j] as [number, number]),
}));
const buf = encodeWriteRequest(series);
console.log(`request: ${series.length} series × 10 samples, ${buf.length} bytes of protobuf`);
function bench(name: string, f: () => unknown): void {
  for (let i = 0; i < 20; i++) f();
  const t = performance.now();
  for (let i = 0; i < 200; i++) f();
  console.log(`${name.padEnd(44)}${((performance.now() - t) / 200).toFixed(2)} ms`);
}
bench("Outpost reader (labels and samples as plain data)", () => decodeWriteRequest(buf));
bench("protobufjs decode (message objects, Long times)", () => WriteRequestType.decode(buf));
bench("protobufjs decode + toObject (plain data)", () => WriteRequestType.toObject(WriteRequestType.decode(buf), { longs: Number }));
