/**
 * The string forms the upstream hashes are built from (research §3.7). Upstream appends Java
 * `toString()` of property values and writes data values with its own minimal JSON writer; both
 * differ from JavaScript's defaults, so the hashes stay comparable only if we reproduce them.
 */

/** Java `Double.toString`: plain decimals in [1e-3, 1e7), otherwise `d.dddE±n` with at least one decimal. */
export function javaDouble(n: number): string {
  if (Number.isNaN(n)) return "NaN";
  if (!Number.isFinite(n)) return n > 0 ? "Infinity" : "-Infinity";
  if (n === 0) return Object.is(n, -0) ? "-0.0" : "0.0";
  const abs = Math.abs(n);
  if (abs >= 1e-3 && abs < 1e7) {
    const s = String(n);
    return s.includes(".") ? s : `${s}.0`;
  }
  const [mantissa, exp] = n.toExponential().split("e") as [string, string];
  const m = mantissa.includes(".") ? mantissa : `${mantissa}.0`;
  return `${m}E${exp.startsWith("+") ? exp.slice(1) : exp}`;
}

/** A JSON number as Java reads it: safe integers are integral (`Long.toString`), the rest doubles. */
export function javaNumber(n: number): string {
  return Number.isSafeInteger(n) ? String(n) : javaDouble(n);
}

/** Java `String.valueOf` of a value Jackson produced from JSON (String, Long, Double, Boolean, List, LinkedHashMap). */
export function javaToString(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (typeof v === "string") return v;
  if (typeof v === "number") return javaNumber(v);
  if (typeof v === "boolean") return v ? "true" : "false";
  if (Array.isArray(v)) return `[${v.map(javaToString).join(", ")}]`;
  if (typeof v === "object") {
    return `{${Object.entries(v as Record<string, unknown>)
      .map(([k, x]) => `${k}=${javaToString(x)}`)
      .join(", ")}}`;
  }
  return String(v);
}

/** Java's natural String order (UTF-16 code units), which is also JavaScript's default `<`. */
export function compareJava(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The upstream minimal JSON of a data value: map keys sorted, strings written between quotes
 * without escaping, no spaces, undefined as `null`.
 */
export function structuredJson(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (typeof v === "boolean") return v ? "true" : "false";
  if (typeof v === "number") return javaNumber(v);
  if (typeof v === "string") return `"${v}"`;
  if (Array.isArray(v)) return `[${v.map(structuredJson).join(",")}]`;
  if (typeof v === "object") {
    const entries = Object.entries(v as Record<string, unknown>).sort(([a], [b]) => compareJava(a, b));
    return `{${entries.map(([k, x]) => `"${k}":${structuredJson(x)}`).join(",")}}`;
  }
  return "null";
}
