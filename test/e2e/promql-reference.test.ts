/**
 * PromQL answers of the collector compared with a real Prometheus (test/helpers/
 * reference-prometheus.ts) loaded with the same remote-write requests: staleness markers, a
 * series that just stops, counter resets, and the queries that read them.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { body, startTestCollector, type TestCollector } from "../helpers/collector.ts";
import { comparable, type ReferencePrometheus, startReferencePrometheus } from "../helpers/reference-prometheus.ts";
import { REMOTE_WRITE_HEADERS, remoteWriteBody, type SeriesIn } from "../helpers/remote-write.ts";

let c: TestCollector;
let ref: ReferencePrometheus;
// Samples 3 s after each 15 s mark, evaluation times on 10 s marks: no sample ever lies on the
// left edge of a lookback or range window, where Prometheus 2 (the reference) and 3 differ.
const T0 = Math.floor(Date.now() / 60_000) * 60_000 - 3_600_000;
const at = (s: number) => T0 + s * 1000;
const every15 = (from: number, values: (number | "stale")[]): [number, number | "stale"][] => values.map((v, i) => [at(from + 15 * i), v]);

const SERIES: SeriesIn[] = [
  { labels: { __name__: "flaky", job: "a" }, samples: [...every15(3, [1, 2, 3, "stale"]), ...every15(93, [5, 6, "stale"]), ...every15(303, [8, 9])] },
  { labels: { __name__: "flaky", job: "b" }, samples: every15(3, [4, "stale", 6, "stale", 8, "stale"]) },
  { labels: { __name__: "steady", job: "a" }, samples: every15(3, Array.from({ length: 40 }, (_, i) => i * 2)) },
  { labels: { __name__: "stops", job: "a" }, samples: every15(3, [1, 2, 3]) },
  // Far from zero: where rate's extrapolation stops at a counter's zero point, Prometheus 2 and 3 differ.
  { labels: { __name__: "ctr_total", job: "a" }, samples: every15(3, [1000, 1020, 1035, "stale", 1040, 1055, 1060, "stale", "stale", 1070, 1090]) },
  { labels: { __name__: "resetting_total", job: "a" }, samples: every15(3, [10, 20, 35, 5, "stale", 15, 30, 31, 50, "stale", 60, 70]) },
];

beforeAll(async () => {
  [c, ref] = await Promise.all([startTestCollector(), startReferencePrometheus()]);
  const w = await c.req("/prometheus/ref/api/v1/write", { method: "POST", tenant: null, headers: REMOTE_WRITE_HEADERS, body: remoteWriteBody(SERIES) });
  expect(w.status).toBe(204);
  await ref.write(SERIES);
}, 60_000);

afterAll(async () => {
  await Promise.all([c?.close(), ref?.stop()]);
});

const instantPath = (q: string, s: number) => `/api/v1/query?${new URLSearchParams({ query: q, time: String(at(s) / 1000) })}`;
const rangePath = (q: string, from: number, to: number, step: number) =>
  `/api/v1/query_range?${new URLSearchParams({ query: q, start: String(at(from) / 1000), end: String(at(to) / 1000), step: String(step) })}`;

/**
 * The query at every 10 s mark (plus `shift` seconds) from 0 to 8 minutes, and over that span
 * as range queries; the same status, error type and result.
 */
async function expectSameAnswers(q: string, shift = 0): Promise<void> {
  const same = async (path: string, what: string) => {
    const [mine, theirs] = await Promise.all([c.req(`/prometheus/ref${path}`, { tenant: null }), ref.get(path)]);
    expect([mine.status, comparable(await body(mine))], `${q} ${what}`).toEqual([theirs.status, comparable(theirs.body)]);
  };
  for (let s = shift; s <= 480; s += 10) await same(instantPath(q, s), `at +${s}s`);
  for (const [from, to, step] of [
    [shift, 480 + shift, 10],
    [20 + shift, 400 + shift, 30],
  ] as const) {
    await same(rangePath(q, from, to, step), `from +${from}s to +${to}s every ${step}s`);
  }
}

describe("the collector answers as a real Prometheus over staleness markers", () => {
  test.each([
    "flaky",
    "steady",
    "stops",
    "ctr_total",
    "resetting_total",
    "timestamp(flaky)",
    "flaky + ignoring(job) group_left steady",
    "sum(flaky)",
    "count(flaky) by (job)",
    "absent(flaky)",
    'absent(flaky{job="b"})',
    "flaky offset 40s",
    `flaky @ ${at(50) / 1000}`,
    "count_over_time(flaky[1m])",
    "last_over_time(flaky[1m])",
    "max_over_time(resetting_total[2m])",
    "rate(ctr_total[1m])",
    "increase(ctr_total[2m])",
    "delta(flaky[2m])",
    "resets(resetting_total[5m])",
    "changes(flaky[5m])",
    "irate(resetting_total[1m])",
    "absent_over_time(flaky[30s])",
  ])("%s", async (q) => {
    await expectSameAnswers(q);
  }, 60_000);
});

describe("the collector answers subqueries as a real Prometheus", () => {
  // Evaluated 1 s after the 10 s marks, `@` too, and inner ranges of nested subqueries that are
  // no multiple of their step: no window's left edge falls on a subquery step, where
  // Prometheus 2 (the reference) keeps the step's value and Prometheus 3 does not.
  test.each([
    "steady[1m:10s]",
    "steady[1m:15s] offset 20s",
    "max_over_time(flaky[1m:10s])",
    "sum_over_time(steady[2m:15s])",
    "rate(ctr_total[1m:10s])",
    "max_over_time(rate(ctr_total[1m])[3m:20s])",
    "avg_over_time(sum(flaky)[2m:30s])",
    "sum_over_time(steady[1m:10s] offset 30s)",
    `sum_over_time(steady[1m:10s] @ ${at(201) / 1000})`,
    `sum_over_time(steady[1m:10s] @ ${at(201) / 1000} offset 1m)`,
    "sum_over_time(steady[1m:10s] @ end())",
    "sum_over_time(steady[1m:10s] @ start())",
    `min_over_time((steady @ ${at(100) / 1000})[1m:10s])`,
    "count_over_time(steady[5m:])",
    "max_over_time(rate(ctr_total[65s:10s])[2m:20s])",
    "sum_over_time(max_over_time(flaky[35s:10s])[2m:30s] offset 20s)",
    "absent_over_time(flaky[1m:10s])",
    "quantile_over_time(0.5, steady[2m:10s])",
    "deriv(steady[3m:30s])",
    "last_over_time(flaky[1m:10s])",
    "max_over_time((-steady)[1m:10s])",
    "flaky[1m:10s][5m:1m]",
    "sum(flaky[1m:1m])",
    "-steady[1m:10s]",
    "-(steady)[1m:10s]",
    "steady[5m:0s]",
    "steady[0s:1m]",
  ])("%s", async (q) => {
    await expectSameAnswers(q, 1);
  }, 60_000);
});
