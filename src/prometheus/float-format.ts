/** Numbers written as Go's strconv and Prometheus' text formats write them. */

/** Go's FormatFloat(f, 'g', -1, 64): shortest digits, exponent form below 1e-4 and from 1e6 on ("1e+06"). */
export function formatGoFloatG(f: number): string {
  if (Number.isNaN(f)) return "NaN";
  if (f === Number.POSITIVE_INFINITY) return "+Inf";
  if (f === Number.NEGATIVE_INFINITY) return "-Inf";
  if (f === 0) return Object.is(f, -0) ? "-0" : "0";
  // toExponential() gives the shortest digits that read back as f.
  const e = f.toExponential();
  const at = e.indexOf("e");
  const exp = Number(e.slice(at + 1));
  const neg = f < 0;
  const digits = e.slice(neg ? 1 : 0, at).replace(".", "");
  let out: string;
  if (exp < -4 || exp >= 6) {
    const a = Math.abs(exp);
    out = `${digits[0]}${digits.length > 1 ? `.${digits.slice(1)}` : ""}e${exp < 0 ? "-" : "+"}${a < 10 ? `0${a}` : a}`;
  } else if (exp < 0) out = `0.${"0".repeat(-exp - 1)}${digits}`;
  else if (exp + 1 >= digits.length) out = digits + "0".repeat(exp + 1 - digits.length);
  else out = `${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
  return neg ? `-${out}` : out;
}

/** Prometheus' formatOpenMetricsFloat: as Go's 'g' format, with ".0" added to whole numbers (`le="1.0"`). */
export function formatOpenMetricsFloat(f: number): string {
  const s = formatGoFloatG(f);
  if (!Number.isFinite(f) || s.includes(".") || s.includes("e")) return s;
  return `${s}.0`;
}
