/**
 * Values written as Hawkular Alerting's Java code writes them into display strings
 * (`String.format` and `toString`), so that `displayString` reads as upstream's: `%.2f`,
 * `Double.toString`, `%tc`, and the `toString` of lists and maps.
 */

/** The decimal digits and exponent of |x|'s shortest round-trip form: 0.0125 → ["125", -1]. */
function shortestDigits(x: number): [string, number] {
  const s = String(Math.abs(x));
  const m = /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(s)!;
  const int = m[1]!;
  const frac = m[2] ?? "";
  const exp = Number(m[3] ?? 0);
  // Significant digits only: leading zeros move the point, trailing ones say nothing.
  const digits = (int + frac).replace(/^0+/, "").replace(/0+$/, "");
  // The position of the decimal point, counted from the first significant digit.
  const point = int.length + exp - ((int + frac).length - (int + frac).replace(/^0+/, "").length);
  return [digits === "" ? "0" : digits, digits === "" ? 1 : point];
}

/**
 * Java's `%.2f`: two decimals, rounded half up from the number's shortest decimal form (so
 * 2.675 gives 2.68, where JavaScript's toFixed gives 2.67), NaN and Infinity as Java writes them.
 */
export function fixed2(x: number): string {
  if (Number.isNaN(x)) return "NaN";
  if (!Number.isFinite(x)) return x > 0 ? "Infinity" : "-Infinity";
  const [digits, point] = shortestDigits(x);
  // Units of 0.01, as a digit string: the digits up to two places after the point, then round.
  const keep = point + 2;
  let units: string;
  if (keep <= 0) units = keep === 0 && digits[0]! >= "5" ? "1" : "0";
  else {
    const head = (digits + "0".repeat(Math.max(0, keep - digits.length))).slice(0, keep);
    units = digits.length > keep && digits[keep]! >= "5" ? increment(head) : head;
  }
  units = units.replace(/^0+(?=\d)/, "").padStart(3, "0");
  const sign = x < 0 || Object.is(x, -0) ? "-" : "";
  return `${sign}${units.slice(0, -2)}.${units.slice(-2)}`;
}

function increment(d: string): string {
  const a = d.split("");
  let i = a.length - 1;
  while (i >= 0 && a[i] === "9") a[i--] = "0";
  if (i < 0) return `1${a.join("")}`;
  a[i] = String(Number(a[i]) + 1);
  return a.join("");
}

/** Java's `Double.toString`: at least one decimal (5.0), scientific below 10^-3 and from 10^7 (1.0E7). */
export function javaDouble(x: number): string {
  if (Number.isNaN(x)) return "NaN";
  if (!Number.isFinite(x)) return x > 0 ? "Infinity" : "-Infinity";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const abs = Math.abs(x);
  const sign = x < 0 ? "-" : "";
  if (abs >= 1e-3 && abs < 1e7) {
    const s = String(abs);
    return sign + (s.includes(".") ? s : `${s}.0`);
  }
  const [digits, point] = shortestDigits(x);
  return `${sign}${digits[0]}.${digits.length > 1 ? digits.slice(1) : "0"}E${point - 1}`;
}

const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const two = (n: number) => String(n).padStart(2, "0");

/** Java's `%tc` of a time in ms, in UTC: `Tue Nov 14 10:30:00 UTC 2017`. */
export function javaDate(ms: number): string {
  const d = new Date(ms);
  if (Number.isNaN(d.getTime())) return String(ms);
  return `${DAYS[d.getUTCDay()]} ${MONTHS[d.getUTCMonth()]} ${two(d.getUTCDate())} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())} UTC ${d.getUTCFullYear()}`;
}

/** A Java `List.toString`: `[a, b]`. */
export function javaList(items: readonly unknown[]): string {
  return `[${items.map(javaValue).join(", ")}]`;
}

/** A Java `Map.toString` (`{k=v, k2=v2}`, in the map's own order), `null` when absent. */
export function javaMap(m: Readonly<Record<string, unknown>> | undefined): string {
  if (m === undefined) return "null";
  return `{${Object.entries(m)
    .map(([k, v]) => `${k}=${javaValue(v)}`)
    .join(", ")}}`;
}

/** A value as Java's `String.valueOf` writes it (numbers as doubles, absent as null). */
export function javaValue(v: unknown): string {
  if (v === undefined || v === null) return "null";
  if (typeof v === "number") return Number.isInteger(v) && Math.abs(v) < 2 ** 53 ? String(v) : javaDouble(v);
  return String(v);
}
