/**
 * OpenTelemetry names as Prometheus names, by the compatibility rules Prometheus' own OTLP
 * receiver applies by default (underscore escaping with suffixes): the name cut into tokens at
 * every character a Prometheus name cannot hold, the unit appended in words (`ms` →
 * `milliseconds`, `By/s` → `bytes_per_second`; annotations in braces dropped), `_total` for
 * monotonic sums, `_ratio` for gauges of unit `1`; attribute keys with invalid characters
 * replaced by `_`, `key_` before a leading digit or single underscore.
 */

const UNITS: Record<string, string> = {
  d: "days",
  h: "hours",
  min: "minutes",
  s: "seconds",
  ms: "milliseconds",
  us: "microseconds",
  ns: "nanoseconds",
  By: "bytes",
  KiBy: "kibibytes",
  MiBy: "mebibytes",
  GiBy: "gibibytes",
  TiBy: "tibibytes",
  KBy: "kilobytes",
  MBy: "megabytes",
  GBy: "gigabytes",
  TBy: "terabytes",
  m: "meters",
  V: "volts",
  A: "amperes",
  J: "joules",
  W: "watts",
  g: "grams",
  Cel: "celsius",
  Hz: "hertz",
  "1": "",
  "%": "percent",
};

const PER_UNITS: Record<string, string> = { s: "second", m: "minute", h: "hour", d: "day", w: "week", mo: "month", y: "year" };

const cleanUnit = (u: string) => u.replace(/[^a-zA-Z0-9]+/g, "_").replace(/^_+|_+$/g, "");

export type NameKind = "gauge" | "counter" | "other";

/** The Prometheus name of an OTLP metric: `kind` counter for monotonic sums, gauge for gauges. */
export function prometheusName(name: string, unit: string, kind: NameKind): string {
  const tokens = name.split(/[^a-zA-Z0-9:]+/).filter(Boolean);
  const [main = "", per] = unit.split("/", 2).map((u) => u.trim());
  if (main !== "" && !/[{}]/.test(main)) {
    const word = cleanUnit(UNITS[main] ?? main);
    if (word !== "" && !tokens.includes(word)) tokens.push(word);
  }
  if (per !== undefined && per !== "" && !/[{}]/.test(per)) {
    const word = cleanUnit(PER_UNITS[per] ?? per);
    if (word !== "" && !tokens.includes(word)) tokens.push("per", word);
  }
  const without = (t: string) => tokens.filter((x) => x !== t);
  let out = tokens;
  if (kind === "counter") out = [...without("total"), "total"];
  else if (kind === "gauge" && unit === "1") out = [...without("ratio"), "ratio"];
  const joined = out.join("_");
  return /^[0-9]/.test(joined) ? `_${joined}` : joined;
}

/** A Prometheus label name for an attribute key. */
export function prometheusLabel(key: string): string {
  if (key === "") return key;
  const l = key.replace(/[^a-zA-Z0-9_]/g, "_");
  if (/^[0-9]/.test(l)) return `key_${l}`;
  if (l.startsWith("_") && !l.startsWith("__")) return `key${l}`;
  return l;
}
