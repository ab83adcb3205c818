/**
 * StatsD lines (Etsy's protocol, with DogStatsD's extensions):
 *
 *   <name>:<value>[:<value>...]|<type>[|@<sample rate>][|#<tag>:<value>,<tag>...][|c:<container>][|T<unix seconds>]
 *
 * Types: `c` counter, `g` gauge (a leading `+` or `-` makes it a change of the gauge), `ms`
 * timer, `h` histogram, `d` distribution, `s` set. Several values (DogStatsD 1.1) share the
 * type, rate and tags. A packet holds lines separated by newlines. DogStatsD events (`_e{`) and
 * service checks (`_sc|`) are not metrics: they are reported as unsupported.
 */

export type StatsdType = "c" | "g" | "ms" | "h" | "d" | "s";

export interface StatsdMetric {
  name: string;
  type: StatsdType;
  /** Numbers, or the members of a set (kept as written). */
  values: (number | string)[];
  /** Gauge only: the values are changes, not levels. */
  delta: boolean;
  /** 0 < rate ≤ 1 */
  rate: number;
  tags: [string, string][];
}

export class StatsdLineError extends Error {}

const TYPES = new Set(["c", "g", "ms", "h", "d", "s"]);

export function parseStatsdLine(line: string): StatsdMetric {
  if (line.startsWith("_e{") || line.startsWith("_sc|")) throw new StatsdLineError("DogStatsD events and service checks are not metrics");
  const bar = line.indexOf("|");
  const colon = line.indexOf(":");
  if (colon <= 0 || bar < 0 || colon > bar) throw new StatsdLineError("expected name:value|type");
  const name = line.slice(0, colon);
  const parts = line.slice(bar + 1).split("|");
  const type = parts[0]!;
  if (!TYPES.has(type)) throw new StatsdLineError(`unknown metric type ${JSON.stringify(type)}`);
  let rate = 1;
  let tags: [string, string][] = [];
  for (let i = 1; i < parts.length; i++) {
    const p = parts[i]!;
    if (p.startsWith("@")) {
      rate = Number(p.slice(1));
      if (!(rate > 0 && rate <= 1)) throw new StatsdLineError(`invalid sample rate ${JSON.stringify(p.slice(1))}`);
    } else if (p.startsWith("#")) tags = parseTags(p.slice(1));
    // Container ids (c:) and timestamps (T) of DogStatsD are read past.
    else if (!p.startsWith("c:") && !/^T\d+$/.test(p)) throw new StatsdLineError(`unknown field ${JSON.stringify(p.slice(0, 40))}`);
  }
  const raw = line.slice(colon + 1, bar).split(":");
  let delta = false;
  const values: (number | string)[] = raw.map((v) => {
    if (type === "s") {
      if (v === "") throw new StatsdLineError("empty set member");
      return v;
    }
    if (type === "g" && (v.startsWith("+") || v.startsWith("-"))) delta = true;
    const n = v.trim() === "" ? Number.NaN : Number(v);
    if (!Number.isFinite(n)) throw new StatsdLineError(`invalid value ${JSON.stringify(v.slice(0, 40))}`);
    return n;
  });
  return { name, type: type as StatsdType, values, delta, rate, tags };
}

function parseTags(s: string): [string, string][] {
  const out: [string, string][] = [];
  for (const t of s.split(",")) {
    if (t === "") continue;
    const i = t.indexOf(":");
    // A tag without a value has no Prometheus label (a label's value is never empty): left out.
    if (i <= 0 || i === t.length - 1) continue;
    out.push([t.slice(0, i), t.slice(i + 1)]);
  }
  return out;
}

/** Every line of a packet (or a TCP line), each parsed or failed on its own. */
export function parseStatsdPacket(text: string, each: (m: StatsdMetric) => void, bad: (line: string, why: string) => void): void {
  for (const raw of text.split("\n")) {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (line === "") continue;
    try {
      each(parseStatsdLine(line));
    } catch (e) {
      if (!(e instanceof StatsdLineError)) throw e;
      bad(line, e.message);
    }
  }
}
