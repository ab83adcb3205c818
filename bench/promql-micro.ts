#!/usr/bin/env bun
/**
 * In-process micro-bench of what promql-range.ts's `rate(...[5m])` spends per series, without
 * HTTP, SQLite or threads: decoding the sealed chunks (codec blocks of ~1,024 points, encoded
 * as the store encodes them) and rate's step loop, timed apart, ns per sample. Same data as
 * promql-range.ts: SERIES counters × HOURS h at SCRAPE_S s, 60 s step, 5m window.
 */
import { decodePointsInto, encodePoints, inspectBlock } from "../src/codec/index.ts";
import { extrapolatedRateSteps } from "../src/promql/range-functions.ts";

const SERIES = Number(process.env.SERIES ?? 1000);
const HOURS = Number(process.env.HOURS ?? 24);
const SCRAPE_S = Number(process.env.SCRAPE_S ?? 15);
const CHUNK = Number(process.env.CHUNK ?? 1024);
const ROUNDS = Number(process.env.ROUNDS ?? 7);
const END = Math.floor(Date.now() / 60_000) * 60_000 - 60_000;
const START = END - HOURS * 3_600_000;
const POINTS = Math.floor((END - START) / (SCRAPE_S * 1000)) + 1;

const blocks: Uint8Array[][] = [];
const schemes = new Map<string, number>();
for (let s = 0; s < SERIES; s++) {
  const ts = new Float64Array(POINTS);
  const vals = new Float64Array(POINTS);
  let v = 0;
  for (let j = 0; j < POINTS; j++) {
    v = j % 1440 === 1439 ? 0 : v + ((s * 7 + j * 13) % 23);
    ts[j] = START + j * SCRAPE_S * 1000;
    vals[j] = v;
  }
  const bs: Uint8Array[] = [];
  for (let a = 0; a < POINTS; a += CHUNK) {
    const b = encodePoints({ ts: ts.subarray(a, Math.min(POINTS, a + CHUNK)), nums: vals.subarray(a, Math.min(POINTS, a + CHUNK)) });
    const info = inspectBlock(b);
    const k = `${info.tsScheme}/${info.valueScheme}`;
    schemes.set(k, (schemes.get(k) ?? 0) + 1);
    bs.push(b);
  }
  blocks.push(bs);
}
console.log(`${SERIES} series × ${POINTS} points, chunks of ${CHUNK}; schemes: ${[...schemes].map(([k, n]) => `${k} ${n}`).join(", ")}`);

const ends = new Float64Array(Math.floor((END - START) / 60_000) + 1);
for (let i = 0; i < ends.length; i++) ends[i] = START + i * 60_000;
const ts = new Float64Array(POINTS);
const nums = new Float64Array(POINTS);
const out = { vals: new Float64Array(ends.length), has: new Uint8Array(ends.length) };
const cols: { ts: Float64Array; nums: Float64Array }[] = [];
let check = 0;

function decodeAll(keep: boolean): void {
  for (const bs of blocks) {
    const t = keep ? new Float64Array(POINTS) : ts;
    const v = keep ? new Float64Array(POINTS) : nums;
    let at = 0;
    for (const b of bs) at += decodePointsInto(b, t, v, at).points;
    if (keep) cols.push({ ts: t, nums: v });
  }
}
function rateAll(): void {
  for (const c of cols) {
    out.has.fill(0);
    extrapolatedRateSteps(c.ts, c.nums, ends, 300_000, "rate", out);
    check += out.vals[ends.length - 1]!;
  }
}
decodeAll(true);
const total = SERIES * POINTS;
for (const [name, f] of [["decode", () => decodeAll(false)], ["rate", rateAll]] as const) {
  const times: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const t0 = Bun.nanoseconds();
    f();
    times.push(Bun.nanoseconds() - t0);
  }
  times.sort((a, b) => a - b);
  const med = times[times.length >> 1]!;
  console.log(`${name.padEnd(7)} median ${(med / 1e6).toFixed(1)} ms  (${(med / total).toFixed(2)} ns/sample; min ${(times[0]! / 1e6).toFixed(1)} ms)`);
}
console.log(`check ${check}`);
