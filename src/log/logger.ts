/**
 * Leveled logger writing one line per record to stderr; no global state. Text lines read well
 * in a terminal and journald; JSON lines (`--log-format json`) feed log shippers. A logger and
 * its children share one level, so a reload (SIGHUP) changes it everywhere at once.
 */
export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";
export type LogFormat = "text" | "json";

export const LOG_LEVELS: readonly LogLevel[] = ["debug", "info", "warn", "error", "silent"];
export const LOG_FORMATS: readonly LogFormat[] = ["text", "json"];

const rank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(component: string): Logger;
  readonly level: LogLevel;
  /** Changes the level of this logger, its parent and every child. */
  setLevel(level: LogLevel): void;
}

export function isLogLevel(s: string): s is LogLevel {
  return s in rank;
}

interface Shared {
  level: LogLevel;
  format: LogFormat;
  write: (line: string) => void;
}

function fieldValue(v: unknown): unknown {
  return v instanceof Error ? v.message : v;
}

function textLine(lvl: string, component: string, msg: string, fields?: Record<string, unknown>): string {
  let line = `${new Date().toISOString()} ${lvl.toUpperCase().padEnd(5)} ${component ? `[${component}] ` : ""}${msg}`;
  if (fields) {
    for (const [k, v] of Object.entries(fields)) {
      if (v === undefined) continue;
      line += ` ${k}=${typeof v === "string" ? v : JSON.stringify(fieldValue(v))}`;
    }
  }
  return `${line}\n`;
}

function jsonLine(lvl: string, component: string, msg: string, fields?: Record<string, unknown>): string {
  const rec: Record<string, unknown> = { time: new Date().toISOString(), level: lvl };
  if (component) rec.component = component;
  rec.msg = msg;
  if (fields) {
    for (const [k, v] of Object.entries(fields)) {
      // The record's own keys win: a field named "msg" must not hide the message.
      if (v !== undefined && !(k in rec)) rec[k] = fieldValue(v);
    }
  }
  return `${JSON.stringify(rec)}\n`;
}

function make(shared: Shared, component: string): Logger {
  const emit = (lvl: Exclude<LogLevel, "silent">, msg: string, fields?: Record<string, unknown>) => {
    if (rank[lvl] < rank[shared.level]) return;
    shared.write((shared.format === "json" ? jsonLine : textLine)(lvl, component, msg, fields));
  };
  return {
    get level() {
      return shared.level;
    },
    setLevel(level) {
      shared.level = level;
    },
    debug: (m, f) => emit("debug", m, f),
    info: (m, f) => emit("info", m, f),
    warn: (m, f) => emit("warn", m, f),
    error: (m, f) => emit("error", m, f),
    child: (c) => make(shared, component ? `${component}.${c}` : c),
  };
}

export function createLogger(
  level: LogLevel = "info",
  component = "",
  write: (line: string) => void = (line) => process.stderr.write(line),
  format: LogFormat = "text",
): Logger {
  return make({ level, format, write }, component);
}
