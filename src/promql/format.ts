/** Numbers as Prometheus prints them (Go's strconv with shortest round-trip digits). */

function special(f: number): string | undefined {
  if (Number.isNaN(f)) return "NaN";
  if (f === Number.POSITIVE_INFINITY) return "+Inf";
  if (f === Number.NEGATIVE_INFINITY) return "-Inf";
  if (f === 0 && Object.is(f, -0)) return "-0";
  return undefined;
}

/**
 * A sample value in API responses: fixed notation, exponent notation below 1e-6 and from
 * 1e21 on, with Go's two-digit exponent ("1e-07"); "NaN", "+Inf", "-Inf".
 */
export function formatSampleValue(f: number): string {
  const s = special(f);
  if (s !== undefined) return s;
  // JavaScript switches to exponent notation at the same magnitudes.
  const t = String(f);
  const e = t.indexOf("e");
  if (e < 0) return t;
  const exp = t.slice(e + 2);
  return `${t.slice(0, e + 2)}${exp.length < 2 ? `0${exp}` : exp}`;
}

/** Go's FormatFloat(f, 'f', -1, 64): shortest digits, never an exponent (count_values labels). */
export function formatFloatPlain(f: number): string {
  const s = special(f);
  if (s !== undefined) return s;
  const t = String(f);
  const e = t.indexOf("e");
  if (e < 0) return t;
  const neg = t.startsWith("-");
  const m = t.slice(neg ? 1 : 0, e);
  const dot = m.indexOf(".");
  const mantissa = m.replace(".", "");
  const intDigits = (dot < 0 ? m.length : dot) + Number(t.slice(e + 1));
  let out: string;
  if (intDigits <= 0) out = `0.${"0".repeat(-intDigits)}${mantissa}`;
  else if (intDigits >= mantissa.length) out = mantissa + "0".repeat(intDigits - mantissa.length);
  else out = `${mantissa.slice(0, intDigits)}.${mantissa.slice(intDigits)}`;
  return neg ? `-${out}` : out;
}

/** A timestamp in seconds as Prometheus writes it: milliseconds as up to three decimals. */
export function formatTimestamp(ms: number): string {
  const neg = ms < 0;
  const a = Math.abs(Math.round(ms));
  const secs = Math.floor(a / 1000);
  const frac = a % 1000;
  const s = frac === 0 ? String(secs) : `${secs}.${String(frac).padStart(3, "0")}`;
  return neg ? `-${s}` : s;
}
