import type { OnSiteStatus } from "../../../../../src/http/console/names.ts";
import { ago, bytes, count, dateTime, duration } from "../format.ts";

/** What the on-site banner says (docs/console.md, "On site"). Pure, so it is tested without a browser. */
export interface StatusText {
  /** Offline: the collector is out of reach (no broker link); online otherwise. */
  tone: "offline" | "online";
  headline: string;
  details: string[];
}

/** The window as configured: "24 h" rather than "1 d" for a day or three in whole hours. */
export function windowText(ms: number): string {
  const hours = ms / 3_600_000;
  return Number.isInteger(hours) && hours <= 72 ? `${hours} h` : duration(ms);
}

/**
 * The banner's sentences for the agent's status. Durations use the agent's clock (`now` of the
 * answer), so a laptop whose clock is off does not change them; times are shown in the
 * browser's time zone.
 */
export function statusText(s: OnSiteStatus): StatusText {
  const lastAck =
    s.lastAckAt === undefined ? "The collector has acknowledged nothing since the agent started." : `The collector last acknowledged data at ${dateTime(s.lastAckAt)} (${ago(s.lastAckAt, s.now)}).`;
  const backlog =
    s.backlog.points > 0
      ? `${count(s.backlog.points)} points (${bytes(s.backlog.bytes)}) wait to be sent${s.backlog.oldest === undefined ? "" : `, the oldest buffered at ${dateTime(s.backlog.oldest)}`}.`
      : "Nothing waits to be sent.";
  const kept = `The agent keeps ${windowText(s.history.windowMs)} of acknowledged data for this view (${count(s.history.points)} points, ${bytes(s.history.bytes)}), and reads the waiting points too.`;
  const details = s.connected ? [lastAck, backlog, kept] : [backlog, lastAck, kept];
  if (s.dropped > 0) details.push(`${count(s.dropped)} points were dropped since the agent started (buffer full, too old, or refused by the collector).`);
  if (!s.connected) {
    const since = s.downSince === undefined ? "" : ` since ${dateTime(s.downSince)} (${duration(s.now - s.downSince)})`;
    return { tone: "offline", headline: `Offline: no connection to the broker ${s.broker}${since}.`, details };
  }
  return { tone: "online", headline: `Connected to the broker ${s.broker}.`, details };
}
