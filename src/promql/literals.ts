/** PromQL literals: numbers, durations and strings as Prometheus' lexer reads them. */

export class LiteralError extends Error {}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000, y: 31_536_000_000 };
const DURATION_RE = /^(?:\d+(?:ms|s|m|h|d|w|y))+$/;
const DURATION_PART = /(\d+)(ms|s|m|h|d|w|y)/g;
const UNIT_ORDER = ["y", "w", "d", "h", "m", "s", "ms"];

/**
 * A Prometheus duration (`1h30m`, units y w d h m s ms, largest first, each once) or a plain
 * number of seconds (`90`, `1.5`), in ms.
 */
export function parseDuration(text: string): number {
  const t = text.trim();
  if (DURATION_RE.test(t)) {
    let ms = 0;
    let last = -1;
    for (const m of t.matchAll(DURATION_PART)) {
      const order = UNIT_ORDER.indexOf(m[2]!);
      if (order <= last) throw new LiteralError(`not a valid duration string: "${text}"`);
      last = order;
      ms += Number(m[1]) * UNIT_MS[m[2]!]!;
    }
    if (!Number.isSafeInteger(ms)) throw new LiteralError(`duration out of range: "${text}"`);
    return ms;
  }
  const seconds = parseNumber(t);
  if (!Number.isFinite(seconds)) throw new LiteralError(`not a valid duration string: "${text}"`);
  return Math.round(seconds * 1000);
}

/** A number literal: decimal, hexadecimal, Inf, NaN, or a duration read as seconds. */
export function parseNumber(text: string): number {
  let t = text.replace(/\s+/g, "");
  let sign = 1;
  if (t.startsWith("-") || t.startsWith("+")) {
    if (t[0] === "-") sign = -1;
    t = t.slice(1);
  }
  const lower = t.toLowerCase();
  if (lower === "inf") return sign * Number.POSITIVE_INFINITY;
  if (lower === "nan") return Number.NaN;
  if (/^0x[0-9a-f_]+$/i.test(t)) return sign * Number.parseInt(t.slice(2).replaceAll("_", ""), 16);
  if (/^(\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(e[+-]?\d+)?$/i.test(t)) return sign * Number(t.replaceAll("_", ""));
  if (DURATION_RE.test(t)) return (sign * parseDuration(t)) / 1000;
  throw new LiteralError(`bad number or duration syntax: "${text}"`);
}

const SIMPLE_ESCAPES: Record<string, string> = { a: "\x07", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t", v: "\v", "\\": "\\", "'": "'", '"': '"' };

/** The value of a quoted string literal ("…", '…' with Go escapes, or `…` raw). */
export function unquote(text: string): string {
  const q = text[0];
  if (text.length < 2 || text[text.length - 1] !== q) throw new LiteralError(`unterminated quoted string ${text}`);
  const body = text.slice(1, -1);
  if (q === "`") return body;
  if (q !== '"' && q !== "'") throw new LiteralError(`invalid string literal ${text}`);
  let out = "";
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === "\n") throw new LiteralError("newline in string literal");
    if (c !== "\\") {
      out += c;
      continue;
    }
    const e = body[++i];
    if (e === undefined) throw new LiteralError(`escape sequence not terminated in ${text}`);
    if (e in SIMPLE_ESCAPES) {
      if ((e === "'" && q === '"') || (e === '"' && q === "'")) throw new LiteralError(`unknown escape sequence \\${e}`);
      out += SIMPLE_ESCAPES[e];
    } else if (e === "x" || e === "u" || e === "U") {
      const n = e === "x" ? 2 : e === "u" ? 4 : 8;
      const hex = body.slice(i + 1, i + 1 + n);
      if (!new RegExp(`^[0-9a-fA-F]{${n}}$`).test(hex)) throw new LiteralError(`illegal character in escape sequence \\${e}${hex}`);
      const code = Number.parseInt(hex, 16);
      if (e !== "x" && (code > 0x10ffff || (code >= 0xd800 && code < 0xe000))) throw new LiteralError(`escape sequence is an invalid Unicode code point \\${e}${hex}`);
      out += String.fromCodePoint(code);
      i += n;
    } else if (e >= "0" && e <= "7") {
      const oct = body.slice(i, i + 3);
      if (!/^[0-7]{3}$/.test(oct) || Number.parseInt(oct, 8) > 255) throw new LiteralError(`illegal octal escape sequence \\${oct}`);
      out += String.fromCharCode(Number.parseInt(oct, 8));
      i += 2;
    } else throw new LiteralError(`unknown escape sequence \\${e}`);
  }
  return out;
}

/** Prometheus' legacy name rules: what may stand unquoted. */
export const METRIC_NAME_RE = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
export const LABEL_NAME_RE = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/**
 * An RE2 pattern (as Prometheus reads it) as an anchored JavaScript RegExp. `.` matches
 * newlines (Prometheus 3); a leading `(?i)` becomes the i flag; `(?P<n>` is `(?<n>`.
 */
export function compileRegex(pattern: string): RegExp {
  let p = pattern.replaceAll("(?P<", "(?<");
  let flags = "s";
  const m = /^\(\?([imsU]+)\)/.exec(p);
  if (m) {
    if (m[1]!.includes("i")) flags += "i";
    if (m[1]!.includes("m")) flags += "m";
    p = p.slice(m[0].length);
  }
  try {
    return new RegExp(`^(?:${p})$`, flags);
  } catch (e) {
    throw new LiteralError(`error parsing regexp: ${(e as Error).message.replace(/^Invalid regular expression: /, "")}`);
  }
}
