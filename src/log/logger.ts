/** Leveled logger writing one line per record to stderr; no global state. */
export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";

const rank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(component: string): Logger;
  readonly level: LogLevel;
}

export function isLogLevel(s: string): s is LogLevel {
  return s in rank;
}

export function createLogger(
  level: LogLevel = "info",
  component = "",
  write: (line: string) => void = (line) => process.stderr.write(line),
): Logger {
  const min = rank[level];
  const emit = (lvl: Exclude<LogLevel, "silent">, msg: string, fields?: Record<string, unknown>) => {
    if (rank[lvl] < min) return;
    let line = `${new Date().toISOString()} ${lvl.toUpperCase().padEnd(5)} ${component ? `[${component}] ` : ""}${msg}`;
    if (fields) {
      for (const [k, v] of Object.entries(fields)) {
        if (v === undefined) continue;
        line += ` ${k}=${typeof v === "string" ? v : v instanceof Error ? JSON.stringify(v.message) : JSON.stringify(v)}`;
      }
    }
    write(`${line}\n`);
  };
  return {
    level,
    debug: (m, f) => emit("debug", m, f),
    info: (m, f) => emit("info", m, f),
    warn: (m, f) => emit("warn", m, f),
    error: (m, f) => emit("error", m, f),
    child: (c) => createLogger(level, component ? `${component}.${c}` : c, write),
  };
}
