/** How the console writes times, durations and numbers. Pure functions. */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** A length of time, short: "45 s", "12 min", "3 h 5 min", "2 d 4 h". */
export function duration(ms: number): string {
  const a = Math.abs(ms);
  if (a < MINUTE) return `${Math.round(a / SECOND)} s`;
  if (a < HOUR) return `${Math.floor(a / MINUTE)} min`;
  if (a < DAY) {
    const h = Math.floor(a / HOUR);
    const m = Math.floor((a % HOUR) / MINUTE);
    return m ? `${h} h ${m} min` : `${h} h`;
  }
  const d = Math.floor(a / DAY);
  const h = Math.floor((a % DAY) / HOUR);
  return h ? `${d} d ${h} h` : `${d} d`;
}

/** How long ago: "just now", "5 min ago", "in 2 min" for clocks ahead. */
export function ago(ts: number | undefined, now: number): string {
  if (ts === undefined) return "—";
  const d = now - ts;
  if (Math.abs(d) < 5 * SECOND) return "just now";
  return d >= 0 ? `${duration(d)} ago` : `in ${duration(d)}`;
}

const pad = (n: number) => String(n).padStart(2, "0");

/** Local date and time, sortable and unambiguous: "2026-11-24 14:05:09". */
export function dateTime(ts: number | undefined): string {
  if (ts === undefined) return "—";
  const d = new Date(ts);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** A tick label of the time axis: "14:05", "11-24 14:05" or "11-24", by the range's length. */
export function timeLabel(ms: number, span: number): string {
  const d = new Date(ms);
  const day = `${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
  const time = `${pad(d.getHours())}:${pad(d.getMinutes())}`;
  if (span <= 120_000) return `${time}:${pad(d.getSeconds())}`;
  if (span <= 86_400_000) return time;
  if (span <= 4 * 86_400_000) return `${day} ${time}`;
  return day;
}

/** The value of a datetime-local input for a timestamp, and back. */
export function toLocalInput(ts: number): string {
  const d = new Date(ts);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}
export function fromLocalInput(s: string): number | undefined {
  const t = new Date(s).getTime();
  return Number.isFinite(t) ? t : undefined;
}

const grouped = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

/** An integer count with thousands separators. */
export function count(n: number | undefined): string {
  return n === undefined ? "—" : grouped.format(n);
}

/** A measurement with about three significant digits and k/M/G for large values: "12.3", "4.56 k". */
export function number(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return "—";
  const a = Math.abs(v);
  if (a >= 1e9) return `${trim(v / 1e9)} G`;
  if (a >= 1e6) return `${trim(v / 1e6)} M`;
  if (a >= 1e4) return `${trim(v / 1e3)} k`;
  return trim(v);
}

function trim(v: number): string {
  const a = Math.abs(v);
  const digits = a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3;
  return Number(v.toFixed(digits)).toString();
}

const BYTE_UNITS = ["B", "KiB", "MiB", "GiB", "TiB"];

export function bytes(v: number): string {
  let i = 0;
  let x = Math.abs(v);
  while (x >= 1024 && i < BYTE_UNITS.length - 1) {
    x /= 1024;
    i++;
  }
  return `${v < 0 ? "-" : ""}${trim(x)} ${BYTE_UNITS[i]}`;
}

/** A value in the inventory's unit (BYTES, PERCENTAGE, MILLISECONDS…). */
export function withUnit(v: number | null | undefined, unit: string | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return "—";
  switch (unit) {
    case "BYTES":
      return bytes(v);
    case "PERCENTAGE":
      return `${trim(v)} %`;
    case "MILLISECONDS":
      return v >= 1000 ? `${trim(v / 1000)} s` : `${trim(v)} ms`;
    case "SECONDS":
      return `${trim(v)} s`;
    default:
      return number(v);
  }
}
