/**
 * What exporters serve on `/metrics`: the Prometheus text format 0.0.4 and OpenMetrics 1.0
 * text. A body is read line by line; each sample is handed over with where its series text is
 * in the body, exactly as written (name and label set), which a scraper uses as a cache key so
 * that a known series' labels are not parsed again (and no string is made for it); `parseSeries`
 * parses them when needed. A line that does not parse is reported and skipped: the other lines
 * of the body still count.
 *
 * Exemplars and the `# HELP`/`# UNIT` metadata are read past and not kept. `_created`,
 * `_bucket`, `_sum`, `_count` and quantile lines are samples like any other, as Prometheus
 * ingests them from text formats (docs/inputs.md).
 */
import { formatOpenMetricsFloat } from "./float-format.ts";

export type ExpositionFormat = "text" | "openmetrics";

export interface ExpositionHandler {
  /** One sample, its series text `body.slice(start, end)`; `timestampMs` when the line has one. */
  sample(body: string, start: number, end: number, value: number, timestampMs: number | undefined): void;
  /** A line skipped because it does not parse (1-based line number). */
  invalid(line: number, text: string, reason: string): void;
}

/** Family types by metric family name, from `# TYPE` lines (the label normalization needs them). */
export type FamilyTypes = Map<string, string>;

export class ExpositionError extends Error {}

/** The format a response is in, by its Content-Type (Prometheus' choice: OpenMetrics only when announced). */
export function expositionFormat(contentType: string | null | undefined): ExpositionFormat {
  return /^\s*application\/openmetrics-text/i.test(contentType ?? "") ? "openmetrics" : "text";
}

/** What a scraper asks for, as Prometheus does: OpenMetrics first, then the text format. */
export const SCRAPE_ACCEPT = "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1";

const isNameStart = (c: number) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c === 58;
const isNameChar = (c: number) => isNameStart(c) || (c >= 48 && c <= 57);
const isLabelStart = (c: number) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
const isLabelChar = (c: number) => isLabelStart(c) || (c >= 48 && c <= 57);
const SPACE = 32;
const TAB = 9;
const QUOTE = 34;
const BACKSLASH = 92;

/**
 * Scans a series (`name` or `name{label="value",...}`) from `pos`; returns the position after
 * it, or throws ExpositionError. With `labels`, the label pairs are collected (values unescaped).
 */
function scanSeries(s: string, pos: number, end: number, labels?: [string, string][]): number {
  let i = pos;
  if (i >= end || !isNameStart(s.charCodeAt(i))) throw new ExpositionError("expected a metric name");
  while (i < end && isNameChar(s.charCodeAt(i))) i++;
  if (s.charCodeAt(i) !== 123 /* { */) return i;
  i++;
  for (;;) {
    while (s.charCodeAt(i) === SPACE || s.charCodeAt(i) === TAB) i++;
    if (i >= end) throw new ExpositionError("unterminated label set");
    if (s.charCodeAt(i) === 125 /* } */) return i + 1;
    const ns = i;
    if (!isLabelStart(s.charCodeAt(i))) throw new ExpositionError(`invalid label name at column ${i - pos + 1}`);
    while (i < end && isLabelChar(s.charCodeAt(i))) i++;
    const name = labels ? s.slice(ns, i) : "";
    while (s.charCodeAt(i) === SPACE || s.charCodeAt(i) === TAB) i++;
    if (s.charCodeAt(i) !== 61 /* = */) throw new ExpositionError(`expected "=" after label name ${JSON.stringify(s.slice(ns, i))}`);
    i++;
    while (s.charCodeAt(i) === SPACE || s.charCodeAt(i) === TAB) i++;
    if (s.charCodeAt(i) !== QUOTE) throw new ExpositionError(`expected a quoted value of label ${JSON.stringify(s.slice(ns, i))}`);
    i++;
    const vs = i;
    let escaped = false;
    while (i < end && s.charCodeAt(i) !== QUOTE) {
      if (s.charCodeAt(i) === BACKSLASH) {
        escaped = true;
        i++;
      }
      i++;
    }
    if (i >= end) throw new ExpositionError("unterminated label value");
    if (labels) labels.push([name, escaped ? unescapeLabel(s.slice(vs, i)) : s.slice(vs, i)]);
    i++;
    while (s.charCodeAt(i) === SPACE || s.charCodeAt(i) === TAB) i++;
    const c = s.charCodeAt(i);
    if (c === 44 /* , */) i++;
    else if (c !== 125) throw new ExpositionError(`expected "," or "}" after the value of label ${JSON.stringify(name || s.slice(ns, vs))}`);
  }
}

function unescapeLabel(v: string): string {
  let out = "";
  for (let i = 0; i < v.length; i++) {
    const c = v[i]!;
    if (c !== "\\" || i + 1 >= v.length) {
      out += c;
      continue;
    }
    const n = v[++i]!;
    out += n === "n" ? "\n" : n === "\\" || n === '"' ? n : `\\${n}`;
  }
  return out;
}

/** A sample value as Go's ParseFloat reads the forms exporters write (NaN, ±Inf, decimals, exponents). */
export function parseSampleValue(t: string): number | undefined {
  if (t.length === 0) return undefined;
  const c0 = t.charCodeAt(0);
  // Digits, a sign or a dot: a number (JavaScript's 0x/0b/0o prefixes are not Go's).
  if ((c0 >= 48 && c0 <= 57) || c0 === 45 || c0 === 43 || c0 === 46) {
    const n = +t;
    if (!Number.isNaN(n)) {
      const c1 = t.charCodeAt(1) | 0x20;
      return c0 === 48 && (c1 === 120 || c1 === 98 || c1 === 111) ? undefined : n;
    }
  }
  switch (t.toLowerCase()) {
    case "nan":
    case "+nan":
    case "-nan":
      return Number.NaN;
    case "inf":
    case "+inf":
    case "infinity":
    case "+infinity":
      return Number.POSITIVE_INFINITY;
    case "-inf":
    case "-infinity":
      return Number.NEGATIVE_INFINITY;
  }
  return undefined;
}

const isBlank = (c: number) => c === SPACE || c === TAB;

/** Reads one sample line (no leading blanks); throws ExpositionError. */
function sampleLine(s: string, start: number, end: number, format: ExpositionFormat, h: ExpositionHandler): void {
  const seriesEnd = scanSeries(s, start, end);
  let i = seriesEnd;
  if (i >= end || !isBlank(s.charCodeAt(i))) throw new ExpositionError(i >= end ? "missing value" : "expected a blank after the series");
  while (i < end && isBlank(s.charCodeAt(i))) i++;
  const vs = i;
  while (i < end && !isBlank(s.charCodeAt(i))) i++;
  const value = parseSampleValue(s.slice(vs, i));
  if (value === undefined) throw new ExpositionError(`invalid value ${JSON.stringify(s.slice(vs, i))}`);
  while (i < end && isBlank(s.charCodeAt(i))) i++;
  let ts: number | undefined;
  if (i < end && s.charCodeAt(i) !== 35 /* # exemplar */) {
    const ts0 = i;
    while (i < end && !isBlank(s.charCodeAt(i))) i++;
    const text = s.slice(ts0, i);
    ts = format === "openmetrics" ? openMetricsTimestamp(text) : textTimestamp(text);
    while (i < end && isBlank(s.charCodeAt(i))) i++;
  }
  if (i < end) {
    // OpenMetrics: an exemplar ` # {labels} value [timestamp]`, ignored once it is well-formed.
    if (format !== "openmetrics" || s.charCodeAt(i) !== 35) throw new ExpositionError(`unexpected text after the ${ts === undefined ? "value" : "timestamp"}`);
    exemplar(s, i + 1, end);
  }
  h.sample(s, start, seriesEnd, value, ts);
}

const isDigit = (c: number) => c >= 48 && c <= 57;

/** True for `-?\d{1,16}`. */
function isIntegerText(t: string): boolean {
  const from = t.charCodeAt(0) === 45 ? 1 : 0;
  if (t.length - from < 1 || t.length - from > 16) return false;
  for (let i = from; i < t.length; i++) if (!isDigit(t.charCodeAt(i))) return false;
  return true;
}

/** True for `-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?`. */
function isDecimalText(t: string): boolean {
  const n = t.length;
  let i = t.charCodeAt(0) === 45 ? 1 : 0;
  let digits = 0;
  for (; i < n && isDigit(t.charCodeAt(i)); i++) digits++;
  if (t.charCodeAt(i) === 46) for (i++; i < n && isDigit(t.charCodeAt(i)); i++) digits++;
  if (digits === 0) return false;
  if (i < n && (t.charCodeAt(i) | 0x20) === 101) {
    i++;
    if (t.charCodeAt(i) === 43 || t.charCodeAt(i) === 45) i++;
    const from = i;
    while (i < n && isDigit(t.charCodeAt(i))) i++;
    if (i === from) return false;
  }
  return i === n;
}

/**
 * The words of s[start, end), split at runs of blanks. Text of a scraped body goes through no
 * regular expression: the engine keeps the last string one ran on (for RegExp.input), and a
 * slice of the body kept that way kept the whole body, a megabyte for 10,000 series, until
 * some other expression ran (docs/inputs.md, "Memory").
 */
function words(s: string, start: number, end: number): string[] {
  const out: string[] = [];
  let i = start;
  for (;;) {
    while (i < end && isBlank(s.charCodeAt(i))) i++;
    if (i >= end) return out;
    const from = i;
    while (i < end && !isBlank(s.charCodeAt(i))) i++;
    out.push(s.slice(from, i));
  }
}

function textTimestamp(t: string): number {
  if (!isIntegerText(t)) throw new ExpositionError(`invalid timestamp ${JSON.stringify(t)} (integer milliseconds)`);
  return Number(t);
}

function openMetricsTimestamp(t: string): number {
  const v = isDecimalText(t) ? Number(t) : Number.NaN;
  if (!Number.isFinite(v) || Math.abs(v) > 1e13) throw new ExpositionError(`invalid timestamp ${JSON.stringify(t)} (seconds)`);
  return Math.round(v * 1000);
}

function exemplar(s: string, pos: number, end: number): void {
  let i = pos;
  while (i < end && isBlank(s.charCodeAt(i))) i++;
  if (s.charCodeAt(i) !== 123) throw new ExpositionError("exemplar without a label set");
  // An exemplar's label set has no name before it: scan it as the labels of a made-up name.
  const j = scanSeries(`x${s.slice(i, end)}`, 0, end - i + 1) + i - 1;
  const rest = words(s, j, end);
  if (rest.length < 1 || rest.length > 2 || parseSampleValue(rest[0]!) === undefined) throw new ExpositionError("invalid exemplar");
}

/** A `# TYPE`, `# HELP`, `# UNIT` or `# EOF` line; other comments are ignored (text format only). */
function commentLine(s: string, start: number, end: number, format: ExpositionFormat, types: FamilyTypes): "eof" | undefined {
  const parts = words(s, start + 1, end);
  const kind = parts[0];
  if (kind === "EOF" && parts.length === 1 && format === "openmetrics") return "eof";
  if (kind === "TYPE") {
    if (parts.length !== 3) throw new ExpositionError("a TYPE line is `# TYPE name type`");
    const valid = format === "openmetrics" ? OM_TYPES : TEXT_TYPES;
    if (!valid.has(parts[2]!)) throw new ExpositionError(`unknown metric type ${JSON.stringify(parts[2])}`);
    types.set(parts[1]!, parts[2]!);
    return undefined;
  }
  if (format === "openmetrics" && kind !== "HELP" && kind !== "UNIT") throw new ExpositionError("OpenMetrics allows only # TYPE, # HELP, # UNIT and # EOF comments");
  return undefined;
}

const TEXT_TYPES = new Set(["counter", "gauge", "histogram", "summary", "untyped"]);
const OM_TYPES = new Set(["counter", "gauge", "histogram", "gaugehistogram", "summary", "info", "stateset", "unknown"]);

export interface ExpositionResult {
  samples: number;
  invalid: number;
  /** Family types read from `# TYPE` lines. */
  types: FamilyTypes;
}

/**
 * Reads a whole body. OpenMetrics ends with `# EOF`; a body without it, or with lines after
 * it, is reported as one invalid line (the samples read still count). `types` is filled as
 * `# TYPE` lines are read, so a handler can look a sample's family up while it is called.
 */
export function parseExposition(body: string, format: ExpositionFormat, h: ExpositionHandler, types: FamilyTypes = new Map()): ExpositionResult {
  let samples = 0;
  let invalid = 0;
  let eof = false;
  let lineNo = 0;
  const counting: ExpositionHandler = {
    sample(b, start, end, value, ts) {
      samples++;
      h.sample(b, start, end, value, ts);
    },
    invalid(line, text, reason) {
      invalid++;
      h.invalid(line, text, reason);
    },
  };
  let pos = 0;
  const n = body.length;
  while (pos < n) {
    let end = body.indexOf("\n", pos);
    if (end < 0) end = n;
    lineNo++;
    let start = pos;
    pos = end + 1;
    let stop = end;
    if (stop > start && body.charCodeAt(stop - 1) === 13) stop--;
    if (format === "text") while (start < stop && isBlank(body.charCodeAt(start))) start++;
    if (start === stop) {
      if (format === "openmetrics" && !(pos >= n && end === n)) counting.invalid(lineNo, "", "OpenMetrics has no empty lines");
      continue;
    }
    if (eof) {
      counting.invalid(lineNo, body.slice(start, Math.min(stop, start + 200)), "text after # EOF");
      break;
    }
    try {
      if (body.charCodeAt(start) === 35) {
        if (commentLine(body, start, stop, format, types) === "eof") eof = true;
      } else sampleLine(body, start, stop, format, counting);
    } catch (e) {
      if (!(e instanceof ExpositionError)) throw e;
      counting.invalid(lineNo, body.slice(start, Math.min(stop, start + 200)), e.message);
    }
  }
  if (format === "openmetrics" && !eof) counting.invalid(lineNo, "", "OpenMetrics body does not end with # EOF");
  return { samples, invalid, types };
}

export interface ParsedSeries {
  name: string;
  /** Label pairs in the order written; `__name__` excluded. */
  labels: [string, string][];
}

/**
 * The name and labels of a series text handed to `sample`. Duplicate label names are an
 * error. With the body's family types, the `le` of histogram buckets and the `quantile` of
 * summaries are written as Prometheus 3 stores them (`1` → `1.0`), so the same bucket has one
 * series whatever its exporter printed.
 */
export function parseSeries(series: string, types?: FamilyTypes): ParsedSeries {
  const labels: [string, string][] = [];
  const end = scanSeries(series, 0, series.length, labels);
  if (end !== series.length) throw new ExpositionError("unexpected text after the series");
  const nameEnd = series.indexOf("{");
  const name = nameEnd < 0 ? series : series.slice(0, nameEnd);
  for (let i = 1; i < labels.length; i++) {
    for (let j = 0; j < i; j++) if (labels[j]![0] === labels[i]![0]) throw new ExpositionError(`label ${labels[i]![0]} appears twice`);
  }
  if (types && types.size > 0) normalizeBoundaries(name, labels, types);
  return { name, labels: labels.filter(([k]) => k !== "__name__") };
}

function normalizeBoundaries(name: string, labels: [string, string][], types: FamilyTypes): void {
  const bucketFamily = name.endsWith("_bucket") ? types.get(name.slice(0, -7)) : undefined;
  const key = bucketFamily === "histogram" || bucketFamily === "gaugehistogram" ? "le" : types.get(name) === "summary" ? "quantile" : undefined;
  if (!key) return;
  for (const l of labels) {
    if (l[0] !== key) continue;
    const v = parseSampleValue(l[1]);
    if (v !== undefined) l[1] = formatOpenMetricsFloat(v);
  }
}
