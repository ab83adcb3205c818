/**
 * The InfluxDB line protocol (what Telegraf and InfluxDB clients write):
 *   measurement[,tag=value...] field=value[,field=value...] [timestamp]
 * Field values: floats, integers (`1i`), unsigned (`1u`), booleans, "strings".
 */

export type FieldValue = number | boolean | string;

export interface LinePoint {
  measurement: string;
  tags: Record<string, string>;
  fields: Record<string, FieldValue>;
  /** ms */
  timestamp: number;
}

export class LineProtocolError extends Error {}

/** Nanoseconds per unit of each precision name (v1 and v2 spellings). */
const PRECISION_NS: Record<string, number> = { ns: 1, n: 1, us: 1e3, u: 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 };

export function isPrecision(p: string): boolean {
  return p in PRECISION_NS;
}

/** Reads up to an unescaped character of `stops`, unescaping `\x` as x. */
function readToken(line: string, pos: number, stops: string): [string, number] {
  let out = "";
  let i = pos;
  while (i < line.length) {
    const c = line[i]!;
    if (c === "\\" && i + 1 < line.length && (stops.includes(line[i + 1]!) || line[i + 1] === "\\")) {
      out += line[i + 1];
      i += 2;
      continue;
    }
    if (stops.includes(c)) break;
    out += c;
    i++;
  }
  return [out, i];
}

function fieldValue(raw: string): FieldValue {
  if (/^[-+]?\d+i$/.test(raw) || /^\d+u$/.test(raw)) return Number(raw.slice(0, -1));
  if (/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(raw)) return Number(raw);
  if (/^(t|T|true|True|TRUE)$/.test(raw)) return true;
  if (/^(f|F|false|False|FALSE)$/.test(raw)) return false;
  throw new LineProtocolError(`invalid field value ${JSON.stringify(raw)}`);
}

function parseLine(line: string, precisionNs: number, now: number): LinePoint {
  let [measurement, i] = readToken(line, 0, ", ");
  if (measurement === "") throw new LineProtocolError("missing measurement");
  const tags: Record<string, string> = {};
  while (line[i] === ",") {
    const [k, a] = readToken(line, i + 1, ",= ");
    if (line[a] !== "=") throw new LineProtocolError(`missing tag value of ${JSON.stringify(k)}`);
    const [v, b] = readToken(line, a + 1, ", ");
    if (k === "" || v === "") throw new LineProtocolError("empty tag key or value");
    tags[k] = v;
    i = b;
  }
  if (line[i] !== " ") throw new LineProtocolError("missing fields");
  while (line[i] === " ") i++;
  const fields: Record<string, FieldValue> = {};
  for (;;) {
    const [k, a] = readToken(line, i, ",= ");
    if (k === "" || line[a] !== "=") throw new LineProtocolError(`invalid field ${JSON.stringify(k)}`);
    let j = a + 1;
    if (line[j] === '"') {
      let s = "";
      j++;
      while (j < line.length && line[j] !== '"') {
        if (line[j] === "\\" && (line[j + 1] === '"' || line[j + 1] === "\\")) j++;
        s += line[j++];
      }
      if (line[j] !== '"') throw new LineProtocolError(`unterminated string value of field ${JSON.stringify(k)}`);
      fields[k] = s;
      j++;
    } else {
      const [raw, b] = readToken(line, j, ", ");
      fields[k] = fieldValue(raw);
      j = b;
    }
    i = j;
    if (line[i] !== ",") break;
    i++;
  }
  while (line[i] === " ") i++;
  const tsText = line.slice(i).trim();
  let timestamp = now;
  if (tsText !== "") {
    if (!/^-?\d+$/.test(tsText)) throw new LineProtocolError(`invalid timestamp ${JSON.stringify(tsText)}`);
    // BigInt: nanosecond timestamps exceed 2^53.
    timestamp = Number((BigInt(tsText) * BigInt(precisionNs)) / 1_000_000n);
  }
  return { measurement, tags, fields, timestamp };
}

/**
 * Parses a whole body; any bad line fails it all (nothing is half-written), naming the line.
 * `now` (ms) stamps lines without a timestamp.
 */
export function parseLineProtocol(body: string, precision: string, now: number): LinePoint[] {
  const ns = PRECISION_NS[precision];
  if (ns === undefined) throw new LineProtocolError(`unknown precision ${JSON.stringify(precision)}`);
  const out: LinePoint[] = [];
  const lines = body.split("\n");
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n]!.replace(/\r$/, "");
    if (line.trim() === "" || line.trimStart().startsWith("#")) continue;
    try {
      out.push(parseLine(line.trimStart(), ns, now));
    } catch (e) {
      if (e instanceof LineProtocolError) throw new LineProtocolError(`unable to parse line ${n + 1} '${line.slice(0, 200)}': ${e.message}`);
      throw e;
    }
  }
  return out;
}
