/**
 * What the agent's own configuration allows local actions to do (`[agent.actions]` in its TOML
 * file; docs/local-triggers.md, "Local actions"): the commands it may run, the URLs it may call,
 * whether it may write to the system log, and the bounds on all of them. Nothing is allowed by
 * default, so a collector (or whoever took it over) can only make an agent do what its owner
 * listed here. In `src/` beside the inputs' schema; remote configuration must never set it.
 *
 *   [agent.actions]
 *   syslog = true
 *   [[agent.actions.commands]]
 *   argv = ["/usr/local/bin/siren", "on"]
 *   [[agent.actions.webhooks]]
 *   url = "http://127.0.0.1:9000/siren"
 */
import { OptionError, type OptionSpec, type OptionValues, type TableValue } from "../config/options.ts";
import { type FieldSpec, readTable } from "../config/table.ts";
import { MAX_ACTION_OUTPUT } from "../alerts/actions/agent-record.ts";

const DAY = 86_400_000;

const commandFields: FieldSpec[] = [
  { name: "argv", kind: "list", required: true, help: "the argument vector allowed, the program first as an absolute path (run without a shell)" },
  { name: "extra_args", kind: "boolean", default: false, help: "an action may add arguments after argv (off: the vector must be exactly argv)" },
  { name: "env", kind: "map", default: {}, help: "environment variables the command gets besides PATH and the alert's OUTPOST_* fields" },
];

const webhookFields: FieldSpec[] = [
  { name: "url", kind: "string", required: true, help: "an http(s) URL an action may call exactly; ending with / it also allows the paths below it" },
];

export const actionsFields: FieldSpec[] = [
  { name: "commands", kind: "tables", help: "commands actions may run", fields: commandFields },
  { name: "webhooks", kind: "tables", help: "URLs actions may call", fields: webhookFields },
  { name: "syslog", kind: "boolean", default: false, help: "actions may write to the system log" },
  { name: "syslog_socket", kind: "string", default: "/dev/log", help: "the system log's socket (journald, rsyslog, busybox syslogd); when missing, the agent's own log takes the line" },
  { name: "max_runs", kind: "int", min: 1, max: 1_000_000, default: 10, help: "actions of one trigger run at most this often per rate_window; beyond, they are refused and reported" },
  { name: "rate_window", kind: "duration", min: 1000, max: 30 * DAY, default: "1h", help: "the window of max_runs" },
  { name: "max_timeout", kind: "duration", min: 100, max: DAY, default: "1m", help: "the longest an action may take (its own timeout is cut to this)" },
  { name: "output_limit", kind: "size", min: 0, max: MAX_ACTION_OUTPUT, default: "4KB", help: "output of a command kept and reported, at most" },
  { name: "concurrency", kind: "int", min: 1, max: 64, default: 4, help: "actions running at the same time, at most" },
];

export interface AllowedCommand {
  argv: string[];
  extraArgs: boolean;
  env: Record<string, string>;
}

export interface ActionsConfig {
  commands: AllowedCommand[];
  /** Normalised URLs; those ending with / are prefixes. */
  webhooks: string[];
  syslog: boolean;
  syslogSocket: string;
  maxRuns: number;
  rateWindowMs: number;
  maxTimeoutMs: number;
  outputLimit: number;
  concurrency: number;
}

type Raw = Record<string, unknown>;

/** Environment names a command must not be given: they change how programs load. */
const RESERVED_ENV = /^(LD_|DYLD_)|^OUTPOST_/;

/** Checks beyond the schema, and the typed view. Throws OptionError with one line. */
export function actionsFromTable(t: TableValue, where = "actions"): ActionsConfig {
  const r = t as Raw;
  const commands = (r.commands as Raw[]).map((c, i): AllowedCommand => {
    const argv = c.argv as string[];
    const at = `${where}.commands[${i}]`;
    if (argv.length === 0 || !argv[0]!.startsWith("/")) throw new OptionError(`${at}.argv must start with the program's absolute path`);
    const env = c.env as Record<string, string>;
    for (const k of Object.keys(env)) {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k) || RESERVED_ENV.test(k)) throw new OptionError(`${at}.env: "${k}" is not a variable a command may be given`);
    }
    return { argv, extraArgs: c.extra_args as boolean, env };
  });
  const webhooks = (r.webhooks as Raw[]).map((w, i) => {
    const text = String(w.url);
    let u: URL;
    try {
      u = new URL(text);
    } catch {
      throw new OptionError(`${where}.webhooks[${i}].url: "${text}" is not a URL`);
    }
    if (u.protocol !== "http:" && u.protocol !== "https:") throw new OptionError(`${where}.webhooks[${i}].url must be http or https`);
    if (u.username || u.password) throw new OptionError(`${where}.webhooks[${i}].url must not hold credentials`);
    return u.href;
  });
  return {
    commands,
    webhooks,
    syslog: r.syslog as boolean,
    syslogSocket: String(r.syslog_socket),
    maxRuns: r.max_runs as number,
    rateWindowMs: r.rate_window as number,
    maxTimeoutMs: r.max_timeout as number,
    outputLimit: r.output_limit as number,
    concurrency: r.concurrency as number,
  };
}

const checked = new WeakSet<object>();

/** Reads and checks a raw `actions` table (TOML or JSON). */
export function readActions(raw: unknown, where = "actions"): TableValue {
  const t = readTable(actionsFields, raw, where);
  actionsFromTable(t, where);
  checked.add(t);
  return t;
}

/** The agent option holding what local actions may do. */
export const actionsOption: OptionSpec = {
  name: "actions",
  kind: "table",
  help: "what local actions may do: [[agent.actions.commands]] argv, [[agent.actions.webhooks]] url, syslog, and their limits (docs/local-triggers.md; nothing is allowed by default; as JSON when given as a flag or variable)",
  table: readActions,
};

/** The actions configuration of the options (nothing allowed when none is configured). */
export function actionsConfig(values: OptionValues): ActionsConfig {
  const t = values.actions;
  if (t !== undefined && typeof t === "object" && !Array.isArray(t) && checked.has(t)) return actionsFromTable(t);
  return actionsFromTable(readActions(t ?? {}));
}
