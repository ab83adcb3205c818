/**
 * Timing of the metrics computations over a week of 10 s data (60,480 points) into 60 buckets.
 * Run: node_modules/.bin/bun bench/metrics-stats.ts [runs]
 * Prints p50/p99 per case; nothing is asserted (figures vary with the machine).
 */
import { availabilityBucketStats } from "../src/metrics/availability-stats.ts";
import { bucketsFromCount } from "../src/metrics/buckets.ts";
import { numericBucketStats } from "../src/metrics/bucket-stats.ts";
import { rates } from "../src/metrics/rates.ts";
import { mergeSeries } from "../src/metrics/series.ts";
import { stackBuckets } from "../src/metrics/stacked.ts";
import { percentileOf } from "../src/metrics/percentiles-param.ts";

const runs = Number(process.argv[2] ?? 500);
const WEEK = 7 * 86_400_000;
const STEP = 10_000;
const end = 1_700_000_000_000;
const start = end - WEEK;
const n = WEEK / STEP;

const ts = new Float64Array(n);
const gauge = new Float64Array(n);
const counter = new Float64Array(n);
const avail = new Float64Array(n);
let seed = 42;
const rnd = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
  return seed / 2_147_483_648;
};
let total = 0;
for (let i = 0; i < n; i++) {
  ts[i] = start + i * STEP;
  gauge[i] = 50 + 30 * Math.sin(i / 500) + rnd() * 10;
  total += Math.floor(rnd() * 100);
  counter[i] = i % 20_000 === 19_999 ? 0 : total; // a few resets
  avail[i] = rnd() < 0.05 ? 0 : 1;
}
const buckets = bucketsFromCount(start, end, 60);
const series = { ts, values: gauge };
const fourSeries = [0, 1, 2, 3].map((k) => ({ ts, values: gauge.map((v) => v + k) }));

function measure(name: string, fn: () => unknown): void {
  let sink = 0;
  for (let i = 0; i < 200; i++) sink += Number(Boolean(fn())); // warm-up for the JIT
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    sink += Number(Boolean(fn()));
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(3);
  console.log(`${name.padEnd(58)} p50 ${at(0.5)} ms   p99 ${at(0.99)} ms   (${runs} runs${sink < 0 ? "!" : ""})`);
}

console.log(`${n} points (one week at 10 s) into ${buckets.count} buckets, Bun ${Bun.version}`);
measure("gauge stats, median (desc feed)", () => numericBucketStats(series, buckets, { feedOrder: "desc" }));
measure("counter stats, median (asc feed)", () =>
  numericBucketStats({ ts, values: counter }, buckets, { feedOrder: "asc" }),
);
measure("gauge stats, median + percentiles 90,95,99", () =>
  numericBucketStats(series, buckets, { feedOrder: "desc", percentiles: [90, 95, 99].map(percentileOf) }),
);
measure("counter rate stats (rates, then asc stats)", () =>
  numericBucketStats(rates({ ts, values: counter }, { kind: "counter" }), buckets, { feedOrder: "asc" }),
);
measure("availability stats", () => availabilityBucketStats({ ts, values: avail }, buckets));
measure("4 gauges pooled (merge + stats)", () =>
  numericBucketStats(mergeSeries(fourSeries), buckets, { feedOrder: "desc" }),
);
measure("4 gauges stacked (4 stats + stack)", () =>
  stackBuckets(
    fourSeries.map((s) => numericBucketStats(s, buckets, { feedOrder: "desc" })),
    buckets,
  ),
);
