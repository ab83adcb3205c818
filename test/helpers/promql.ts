/**
 * Hand-built series in the notation of Prometheus' promql test files
 * (`load 5m` + `name{l="v"} 0+10x10 _ NaN stale 1 2`), and queries over them.
 */
import { expect } from "vitest";
import type { Matcher } from "../../src/promql/ast.ts";
import { formatSampleValue } from "../../src/promql/format.ts";
import { labelsFromRecord, labelsToRecord } from "../../src/promql/labels.ts";
import { parseDuration } from "../../src/promql/literals.ts";
import { matchesAll } from "../../src/promql/matchers.ts";
import { parsePromQL } from "../../src/promql/parse.ts";
import { instantQuery, type QueryResult, rangeQuery } from "../../src/promql/query.ts";
import type { RawSeries, SeriesRef, SeriesSource } from "../../src/promql/values.ts";

/** Expands `0+10x3` → 0 10 20 30, `1x2` → 1 1 1, `_` → gap, `stale` → a staleness marker, numbers and NaN/Inf as they are. */
function expandValues(spec: string): (number | undefined | "stale")[] {
  const out: (number | undefined | "stale")[] = [];
  for (const tok of spec.trim().split(/\s+/)) {
    if (tok === "") continue;
    const m = /^([-+]?[\d.]+(?:[eE][-+]?\d+)?|[-+]?Inf|NaN)(?:([-+])([\d.eE]+))?x(\d+)$/.exec(tok);
    if (m) {
      const start = Number(m[1]!.replace("Inf", "Infinity"));
      const inc = m[2] ? (m[2] === "-" ? -1 : 1) * Number(m[3]) : 0;
      for (let i = 0; i <= Number(m[4]); i++) out.push(start + inc * i);
    } else if (/^_x(\d+)$/.test(tok)) {
      for (let i = 0; i < Number(tok.slice(2)); i++) out.push(undefined);
    } else if (tok === "_") out.push(undefined);
    else if (tok === "stale") out.push("stale");
    else out.push(Number(tok.replace("Inf", "Infinity")));
  }
  return out;
}

function parseSeriesLabels(text: string): Record<string, string> {
  const m = /^([a-zA-Z_:][\w:]*)?\s*(?:\{(.*)\})?$/.exec(text.trim());
  if (!m) throw new Error(`bad series ${text}`);
  const out: Record<string, string> = {};
  if (m[1]) out.__name__ = m[1];
  for (const pair of (m[2] ?? "").matchAll(/([\w]+)\s*=\s*"((?:[^"\\]|\\.)*)"/g)) out[pair[1]!] = JSON.parse(`"${pair[2]}"`);
  return out;
}

export class MemorySource implements SeriesSource {
  readonly series: RawSeries[] = [];

  /** Adds series in the `load <interval>` notation, one per line; samples start at t=0. */
  load(interval: string, text: string): this {
    const step = parseDuration(interval);
    for (const raw of text.split("\n")) {
      const line = raw.trim();
      if (line === "") continue;
      const close = line.indexOf("}");
      const split = close >= 0 ? close + 1 : line.search(/\s/);
      const labels = labelsFromRecord(parseSeriesLabels(line.slice(0, split)));
      const values = expandValues(line.slice(split));
      const ts: number[] = [];
      const vals: number[] = [];
      const stale: number[] = [];
      values.forEach((v, i) => {
        if (v === undefined) return;
        if (v === "stale") stale.push(i * step);
        else {
          ts.push(i * step);
          vals.push(v);
        }
      });
      const s: RawSeries = { labels, ts: Float64Array.from(ts), vals: Float64Array.from(vals) };
      if (stale.length) s.stale = Float64Array.from(stale);
      this.series.push(s);
    }
    return this;
  }

  async select(matchers: Matcher[], start: number, end: number): Promise<SeriesRef[]> {
    return this.series
      .filter((s) => matchesAll(s.labels, matchers))
      .map((s) => ({
        labels: s.labels,
        read: async () => {
          const keep = Array.from(s.ts.keys()).filter((i) => s.ts[i]! >= start && s.ts[i]! <= end);
          const stale = s.stale?.filter((t) => t >= start && t <= end);
          if (!keep.length && !stale?.length) return undefined;
          const r: RawSeries = { labels: s.labels, ts: Float64Array.from(keep, (i) => s.ts[i]!), vals: Float64Array.from(keep, (i) => s.vals[i]!) };
          if (stale?.length) r.stale = stale;
          return r;
        },
      }));
  }
}

/** `name{a="1", b="2"}` as Prometheus' test files write a series. */
function fmt(l: Record<string, string>): string {
  const { __name__: name, ...rest } = l;
  return `${name ?? ""}{${Object.entries(rest)
    .map(([k, v]) => `${k}="${v}"`)
    .join(", ")}}`;
}

/** A result as `{labels} value` lines (values as Prometheus formats them), sorted for comparison. */
export function lines(r: QueryResult): string[] {
  switch (r.resultType) {
    case "vector":
      return r.result.map((s) => `${fmt(labelsToRecord(s.labels))} ${formatSampleValue(s.v)}`).sort();
    case "scalar":
      return [formatSampleValue(r.result.v)];
    case "string":
      return [r.result.v];
    case "matrix":
      return r.result.map((s) => `${fmt(labelsToRecord(s.labels))} ${Array.from(s.ts, (t, i) => `${t / 1000}:${formatSampleValue(s.vals[i]!)}`).join(" ")}`);
  }
}

/** `eval instant at <time>`: the result lines. */
export async function evalInstant(src: SeriesSource, at: string, expr: string): Promise<string[]> {
  return lines(await instantQuery(parsePromQL(expr), src, parseDuration(at)));
}

/** `eval range from <start> to <end> step <step>`: per series, the values at each step ("_" for none). */
export async function evalRange(src: SeriesSource, from: string, to: string, step: string, expr: string): Promise<string[]> {
  const start = parseDuration(from);
  const end = parseDuration(to);
  const st = parseDuration(step);
  const r = await rangeQuery(parsePromQL(expr), src, start, end, st);
  if (r.resultType !== "matrix") throw new Error("range query without a matrix");
  return r.result.map((s) => {
    const cells: string[] = [];
    for (let t = start; t <= end; t += st) {
      const i = s.ts.indexOf(t);
      cells.push(i < 0 ? "_" : formatSampleValue(s.vals[i]!));
    }
    return `${fmt(labelsToRecord(s.labels))} ${cells.join(" ")}`;
  });
}

/** Prometheus' test files compare values with a relative tolerance of 1e-6; so do these tests. */
function close(a: string, b: string): boolean {
  if (a === b) return true;
  const x = Number(a.replace("Inf", "Infinity"));
  const y = Number(b.replace("Inf", "Infinity"));
  if (Number.isNaN(x) || Number.isNaN(y)) return false;
  return Math.abs(x - y) <= 1e-6 * Math.max(Math.abs(x), Math.abs(y));
}

/** Lines equal up to the tolerance of numbers (the last space-separated fields). */
export function sameLines(got: string[], want: string[]): boolean {
  if (got.length !== want.length) return false;
  return got.every((g, i) => {
    const w = want[i]!;
    const gs = g.split(" ");
    const ws = w.split(" ");
    if (gs.length !== ws.length) return false;
    return gs.every((part, j) => part === ws[j] || close(part.replace(/^.*:/, ""), ws[j]!.replace(/^.*:/, "")));
  });
}

/** Asserts result lines against expected ones with Prometheus' tolerance (a plain diff on failure). */
export function expectLines(got: string[], want: string[]): void {
  if (!sameLines(got, want)) expect(got).toEqual(want);
}

/** The eight `http_requests` series of Prometheus' aggregators.test and operators.test. */
export function httpRequests(): MemorySource {
  return new MemorySource().load(
    "5m",
    `http_requests{job="api-server", instance="0", group="production"} 0+10x10
     http_requests{job="api-server", instance="1", group="production"} 0+20x10
     http_requests{job="api-server", instance="0", group="canary"} 0+30x10
     http_requests{job="api-server", instance="1", group="canary"} 0+40x10
     http_requests{job="app-server", instance="0", group="production"} 0+50x10
     http_requests{job="app-server", instance="1", group="production"} 0+60x10
     http_requests{job="app-server", instance="0", group="canary"} 0+70x10
     http_requests{job="app-server", instance="1", group="canary"} 0+80x10`,
  );
}
