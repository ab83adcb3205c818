import { connect } from "node:net";
import { SYSLOG_FACILITIES, SYSLOG_LEVELS } from "../../src/alerts/actions/agent-plugin.ts";
import { ECONNREFUSED, ENOENT, EPROTOTYPE, SocketError, sendDatagram } from "./unix-datagram.ts";

/** Longest message sent; the rest is cut (syslog daemons cut at 1–8 KB anyway). */
const MAX_MESSAGE = 2048;
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

export interface SyslogLine {
  facility: (typeof SYSLOG_FACILITIES)[number];
  level: (typeof SYSLOG_LEVELS)[number];
  tag: string;
  message: string;
}

/** The level of an alert or event: by severity while open, notice once resolved, info for events. */
export function levelOf(eventType: string, status: string, severity: string): SyslogLine["level"] {
  if (eventType !== "ALERT") return "info";
  if (status === "RESOLVED") return "notice";
  if (status === "ACKNOWLEDGED") return "info";
  return ({ CRITICAL: "crit", HIGH: "err", MEDIUM: "warning", LOW: "notice" } as const)[severity as "LOW"] ?? "warning";
}

/**
 * The line as the C library's syslog(3) writes it to /dev/log (RFC 3164 without a host name):
 * `<PRI>Mmm dd hh:mm:ss TAG[PID]: MESSAGE`, which journald, rsyslog, syslog-ng and busybox
 * syslogd all read. Line breaks become spaces: one action, one log line.
 */
export function formatSyslog(l: SyslogLine, at: Date, pid: number): string {
  const f = SYSLOG_FACILITIES.indexOf(l.facility);
  // kern..ftp are 0..11; local0..local7 are 16..23.
  const code = f < 12 ? f : f + 4;
  const pri = code * 8 + SYSLOG_LEVELS.indexOf(l.level);
  const p2 = (n: number) => String(n).padStart(2, "0");
  const stamp = `${MONTHS[at.getMonth()]} ${String(at.getDate()).padStart(2, " ")} ${p2(at.getHours())}:${p2(at.getMinutes())}:${p2(at.getSeconds())}`;
  const text = l.message.replace(/[\r\n]+/g, " ").slice(0, MAX_MESSAGE);
  return `<${pri}>${stamp} ${l.tag}[${pid}]: ${text}`;
}

function sendStream(path: string, line: string, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const s = connect({ path });
    const timer = setTimeout(() => s.destroy(new Error(`timed out writing to ${path}`)), timeoutMs);
    s.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    s.on("connect", () => s.end(`${line}\n`, () => {
      clearTimeout(timer);
      resolve();
    }));
  });
}

export type SyslogResult = { written: "syslog"; detail: string } | { written: "agent-log"; detail: string };

/**
 * Writes the line to the system log's socket: a datagram, as to journald's and rsyslog's
 * /dev/log, or a stream line where the socket is a stream socket. A host with no system log
 * (a container, a minimal image) has no socket: the caller then writes to the agent's own log.
 */
export async function writeSyslog(socket: string, line: string, timeoutMs: number): Promise<SyslogResult> {
  try {
    sendDatagram(socket, new TextEncoder().encode(line));
    return { written: "syslog", detail: `written to ${socket}` };
  } catch (e) {
    if (!(e instanceof SocketError)) throw e;
    if (e.errno === EPROTOTYPE) {
      await sendStream(socket, line, timeoutMs);
      return { written: "syslog", detail: `written to ${socket} (stream socket)` };
    }
    if (e.errno === ENOENT || e.errno === ECONNREFUSED) return { written: "agent-log", detail: `no system log at ${socket}: written to the agent's own log` };
    throw e;
  }
}
