#!/usr/bin/env bun
/**
 * Decoding an OTLP/HTTP protobuf metrics request (100 metrics × 100 points, as an SDK exports
 * 10,000 series at once): Outpost's reader for the fixed schema (src/otlp/protobuf-decode.ts)
 * against protobufjs with the same schema, decode only and decoded to plain objects; and the
 * conversion to series that follows either way. CPU time per request, median of rounds.
 */
import { decodeMetricsProtobuf } from "../src/otlp/protobuf-decode.ts";
import { DeltaTotals, otlpToSeries } from "../src/otlp/to-series.ts";
import { otlpRequest, RequestType } from "./_otlp-protobuf.ts";
import { row } from "./_lib.ts";

const body = otlpRequest({ metrics: 100, pointsPerMetric: 100, ms: Date.now(), round: 1 });
console.log(`request: 100 metrics × 100 points = 10,000 points, ${body.length.toLocaleString("en-US")} bytes of protobuf`);

function bench(name: string, f: () => unknown): number {
  for (let i = 0; i < 30; i++) f();
  const rounds: number[] = [];
  for (let r = 0; r < 7; r++) {
    const c0 = process.cpuUsage();
    for (let i = 0; i < 30; i++) f();
    const c = process.cpuUsage(c0);
    rounds.push((c.user + c.system) / 1000 / 30);
  }
  rounds.sort((a, b) => a - b);
  const ms = rounds[3]!;
  row(name, `${ms.toFixed(2)} ms CPU (${((ms * 1e6) / 10_000).toFixed(0)} ns a point)`);
  return ms;
}

const ours = bench("Outpost reader (plain data, times in ms)", () => decodeMetricsProtobuf(body));
const pbjs = bench("protobufjs decode (message objects, Long times)", () => RequestType.decode(body));
const pbjsPlain = bench("protobufjs decode + toObject (plain data)", () => RequestType.toObject(RequestType.decode(body), { longs: String }));
const req = decodeMetricsProtobuf(body);
const conv = bench("conversion to series (either way)", () => otlpToSeries(req, new DeltaTotals(), { now: Date.now() }));
row("reader ÷ protobufjs decode", (ours / pbjs).toFixed(2));
row("reader ÷ protobufjs decode + toObject", (ours / pbjsPlain).toFixed(2));
row("conversion ÷ reader", (conv / ours).toFixed(2));
