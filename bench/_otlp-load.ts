/**
 * OTLP/HTTP load for bench/inputs-rate.ts: CONCURRENCY loops POST protobuf requests of METRICS ×
 * POINTS points to URL for DURATION ms, each request stamped with its own time (the template's
 * fixed64 timestamps patched), and print one JSON line: points accepted, requests, refusals.
 */
import { otlpRequest } from "./_otlp-protobuf.ts";

const url = process.env.URL!;
const concurrency = Number(process.env.CONCURRENCY ?? 4);
const duration = Number(process.env.DURATION ?? 60_000);
const metrics = Number(process.env.METRICS ?? 10);
const points = Number(process.env.POINTS ?? 100);
const base = Date.now() - 3_600_000;
const template = otlpRequest({ metrics, pointsPerMetric: points, ms: base, round: 1 });
const stamp = new Uint8Array(new BigUint64Array([BigInt(base) * 1_000_000n]).buffer);
const at: number[] = [];
for (let i = 0; i + 8 <= template.length; i++) if (stamp.every((b, k) => template[i + k] === b)) at.push(i);
let seq = 0;
const out = { points: 0, requests: 0, errors: 0, partial: 0 };
const end = Date.now() + duration;
async function loop(): Promise<void> {
  const body = new Uint8Array(template);
  while (Date.now() < end) {
    const ns = new Uint8Array(new BigUint64Array([BigInt(base + ++seq) * 1_000_000n]).buffer);
    for (const i of at) body.set(ns, i);
    const res = await fetch(url, { method: "POST", headers: { "Content-Type": "application/x-protobuf" }, body });
    const b = new Uint8Array(await res.arrayBuffer());
    out.requests++;
    if (res.status !== 200) out.errors++;
    else if (b.length > 0) out.partial++;
    else out.points += metrics * points;
  }
}
await Promise.all(Array.from({ length: concurrency }, loop));
console.log(JSON.stringify({ ...out, stampsPatched: at.length }));
