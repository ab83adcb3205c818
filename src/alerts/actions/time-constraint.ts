import type { TimeConstraint } from "../model.ts";

/**
 * Calendars that restrict when an action runs (Hawkular's TimeConstraint):
 * - absolute (`relative: false`): `yyyy.MM.dd[,HH:mm]` bounds;
 * - relative (default): up to three fields `[month],[weekday],[HH:mm]` (long or short names),
 *   each compared as a repeating interval that may wrap (Dec..Feb, Fri..Mon, 22:00..06:00).
 * Bounds are inclusive. `inRange: false` inverts the result. Times are read in `timeZoneName`
 * (an IANA name or `GMT±H[:MM]`), else UTC.
 */

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const LONG_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];
const DAYS = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];
const LONG_DAYS = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"];

export class TimeConstraintError extends Error {}

interface Fields {
  month?: number;
  day?: number;
  minute?: number;
}

interface LocalTime {
  year: number;
  month: number;
  day: number;
  weekday: number;
  minute: number;
}

function parseRelative(s: string, which: string): Fields {
  const parts = s.split(",").map((p) => p.trim().toLowerCase());
  if (parts.length > 3) throw new TimeConstraintError(`${which} has more than 3 fields: ${s}`);
  const f: Fields = {};
  for (const p of parts) {
    const hm = /^(\d{1,2}):(\d{2})$/.exec(p);
    let m = MONTHS.indexOf(p);
    if (m < 0) m = LONG_MONTHS.indexOf(p);
    let d = DAYS.indexOf(p);
    if (d < 0) d = LONG_DAYS.indexOf(p);
    if (hm && Number(hm[1]) < 24 && Number(hm[2]) < 60 && f.minute === undefined) f.minute = Number(hm[1]) * 60 + Number(hm[2]);
    else if (m >= 0 && f.month === undefined) f.month = m;
    else if (d >= 0 && f.day === undefined) f.day = d;
    else throw new TimeConstraintError(`Bad format on ${which}: ${s}`);
  }
  return f;
}

/** Minutes east of UTC for `GMT+5`, `GMT-5:00`, `UTC+05:30`; undefined if not that form. */
function fixedOffset(zone: string): number | undefined {
  const m = /^(?:GMT|UTC)(?:([+-])(\d{1,2})(?::?(\d{2}))?)?$/i.exec(zone.trim());
  if (!m) return undefined;
  if (!m[1]) return 0;
  const minutes = Number(m[2]) * 60 + Number(m[3] ?? 0);
  return m[1] === "-" ? -minutes : minutes;
}

function zoneFormatter(zone: string): Intl.DateTimeFormat {
  try {
    return new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      weekday: "short",
      hour: "numeric",
      minute: "numeric",
    });
  } catch {
    throw new TimeConstraintError(`Unknown time zone: ${zone}`);
  }
}

function localTime(t: number, zone: string | undefined): LocalTime {
  const offset = zone === undefined ? 0 : fixedOffset(zone);
  if (offset !== undefined) {
    const d = new Date(t + offset * 60_000);
    return {
      year: d.getUTCFullYear(),
      month: d.getUTCMonth(),
      day: d.getUTCDate(),
      weekday: d.getUTCDay(),
      minute: d.getUTCHours() * 60 + d.getUTCMinutes(),
    };
  }
  const parts = Object.fromEntries(zoneFormatter(zone!).formatToParts(new Date(t)).map((p) => [p.type, p.value]));
  return {
    year: Number(parts.year),
    month: Number(parts.month) - 1,
    day: Number(parts.day),
    weekday: DAYS.indexOf(String(parts.weekday).toLowerCase()),
    minute: Number(parts.hour) * 60 + Number(parts.minute),
  };
}

/** The instant at which the zone's wall clock shows the given local date and minute. */
function instantOf(year: number, month: number, day: number, minute: number, zone: string | undefined): number {
  const wall = Date.UTC(year, month, day, 0, minute);
  const offsetAt = (t: number) => {
    const l = localTime(t, zone);
    return Date.UTC(l.year, l.month, l.day, 0, l.minute) - t;
  };
  const first = wall - offsetAt(wall);
  return wall - offsetAt(first);
}

function parseAbsolute(s: string, which: string, zone: string | undefined): number {
  const m = /^(\d{4})\.(\d{1,2})\.(\d{1,2})(?:,(\d{1,2}):(\d{2}))?$/.exec(s.trim());
  if (!m) throw new TimeConstraintError(`Bad format on ${which}: ${s} (expected yyyy.MM.dd[,HH:mm])`);
  const [year, month, day, hour, minute] = [Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4] ?? 0), Number(m[5] ?? 0)];
  if (month > 11 || day < 1 || day > 31 || hour > 23 || minute > 59) throw new TimeConstraintError(`Bad date on ${which}: ${s}`);
  return instantOf(year, month, day, hour * 60 + minute, zone);
}

function inInterval(start: number, end: number, x: number): boolean {
  return start <= end ? x >= start && x <= end : x >= start || x <= end;
}

/** Throws TimeConstraintError when the constraint cannot be read. */
export function checkTimeConstraint(tc: TimeConstraint): void {
  const zone = tc.timeZoneName || undefined;
  if (zone !== undefined && fixedOffset(zone) === undefined) zoneFormatter(zone);
  if (tc.relative === false) {
    parseAbsolute(tc.startTime, "startTime", zone);
    parseAbsolute(tc.endTime, "endTime", zone);
  } else {
    parseRelative(tc.startTime, "startTime");
    parseRelative(tc.endTime, "endTime");
  }
}

/** Whether an action may run at time `t` under this constraint. */
export function satisfiesTimeConstraint(tc: TimeConstraint, t: number): boolean {
  const zone = tc.timeZoneName || undefined;
  const inRange = tc.inRange !== false;
  let inside: boolean;
  if (tc.relative === false) {
    inside = t >= parseAbsolute(tc.startTime, "startTime", zone) && t <= parseAbsolute(tc.endTime, "endTime", zone);
  } else {
    const s = parseRelative(tc.startTime, "startTime");
    const e = parseRelative(tc.endTime, "endTime");
    const l = localTime(t, zone);
    inside =
      (s.month === undefined || e.month === undefined || inInterval(s.month, e.month, l.month)) &&
      (s.day === undefined || e.day === undefined || inInterval(s.day, e.day, l.weekday)) &&
      (s.minute === undefined || e.minute === undefined || inInterval(s.minute, e.minute, l.minute));
  }
  return inside === inRange;
}
