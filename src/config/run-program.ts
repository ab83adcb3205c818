import { createLogger, type LogFormat, type Logger, type LogLevel } from "../log/logger.ts";
import { suggestion } from "./closest.ts";
import { commonOptions } from "./common-options.ts";
import { formatConfig, formatHelp } from "./help.ts";
import { OptionError, type OptionOrigin, type OptionSource, type OptionSpec, type OptionValues, type ParsedOptions, parseOptions } from "./options.ts";
import { LiveOptions } from "./live-options.ts";
import { ReloadRegistry } from "./reload.ts";
import { versionLine } from "./version.ts";

export type { Reloadable } from "./reload.ts";

/** What a program's start function is given by the shell. */
export interface ProgramContext {
  /** The root logger, configured by --log-level and --log-format (the shell reloads its level). */
  log: Logger;
  /** Register here what SIGHUP can change at run time (see reload.ts). */
  reload: ReloadRegistry;
  /** The options in effect, changed by SIGHUP and by what the program lays over them (live-options.ts). */
  live: LiveOptions;
  /** Where each option's value came from: a default may be replaced (a taken default port), a chosen value not. */
  origin: Record<string, OptionOrigin>;
}

export interface Running {
  /** Drains work in progress and releases everything; bounded by --shutdown-timeout. */
  stop(): Promise<void>;
  /**
   * Re-reads what lives in files the options only name (credentials, certificates), on every
   * SIGHUP after the options were applied. Parts tied to options register with `ctx.reload`.
   */
  reload?(): Promise<void>;
}

/**
 * A command selected by the first argument instead of starting the program (`outpost-collector
 * backup DIR`, `… auth add …`): it gets the arguments after its name. `optionCommand`
 * (command.ts) builds one that takes the program's options.
 */
export interface Subcommand {
  /** One line for the program's --help. */
  summary: string;
  /** Resolves to the exit code (0 unless a number is returned). An OptionError exits 2, any other error 1; both in one line. */
  run(argv: string[]): Promise<unknown>;
}

export interface Program {
  /** Name of the installed binary, e.g. "outpost-agent". */
  name: string;
  usage: string;
  /** The program's own options; the shell adds --log-level, --log-format and --shutdown-timeout. */
  options: OptionSpec[];
  envPrefix: string;
  /** TOML section whose keys apply to this program (e.g. "agent"). */
  section: string;
  /** Sections and environment prefixes of the other program, which may share a file or environment. */
  otherSections?: string[];
  otherEnvPrefixes?: string[];
  /** Default of --shutdown-timeout. */
  shutdownTimeout: string;
  /** Checks beyond the schema (required options, URLs, combinations); throws OptionError. Also run by --check-config and on SIGHUP. */
  validate?(values: OptionValues): void;
  start(values: OptionValues, ctx: ProgramContext): Promise<Running>;
  /** Commands selected by the first argument, e.g. backup, restore, auth. */
  subcommands?: Record<string, Subcommand>;
}

/** Every option of a program, its own and the shell's, as --help lists them. */
export function programOptions(p: Pick<Program, "options" | "shutdownTimeout">): OptionSpec[] {
  return [...p.options, ...commonOptions({ shutdownTimeout: p.shutdownTimeout })];
}

/** What identifies a program's configuration: its name, options, variables and TOML section. */
export type ProgramIdentity = Pick<Program, "name" | "options" | "envPrefix" | "section" | "otherSections" | "otherEnvPrefixes" | "shutdownTimeout">;

export function programSource(p: ProgramIdentity, specs: OptionSpec[]): OptionSource {
  return { specs, envPrefix: p.envPrefix, section: p.section, otherSections: p.otherSections, otherEnvPrefixes: p.otherEnvPrefixes };
}

/** The root logger as --log-level and --log-format say. */
export function loggerFor(values: OptionValues): Logger {
  return createLogger(values["log-level"] as LogLevel, "", undefined, values["log-format"] as LogFormat);
}

/** One line on stderr and the exit code: never a stack trace for what the user must fix. */
function die(e: unknown, code: number, stack = false): never {
  const msg = e instanceof Error ? e.message : String(e);
  process.stderr.write(`error: ${msg.split("\n")[0]}\n`);
  // An unexpected error (a bug) shows where it came from only when asked for (--log-level debug).
  if (stack && !(e instanceof OptionError) && e instanceof Error) process.stderr.write(`${e.stack}\n`);
  process.exit(code);
}

/**
 * The shell of both programs: options (flags, environment, TOML) checked against the schema,
 * --help, --version, --check-config, subcommands, start, SIGHUP reloads and a bounded, clean
 * stop on SIGTERM/SIGINT. Every start-up failure is one line on stderr and exit code 2.
 */
export async function runProgram(p: Program, argv: string[] = process.argv.slice(2)): Promise<void> {
  const first = argv[0];
  if (first !== undefined && !first.startsWith("-") && p.subcommands) {
    const c = p.subcommands[first];
    if (!c) die(new OptionError(`unknown command "${first}" (${suggestion(first, Object.keys(p.subcommands))}; see --help)`), 2);
    try {
      const code = await c.run(argv.slice(1));
      process.exit(typeof code === "number" ? code : 0);
    } catch (e) {
      die(e, e instanceof OptionError ? 2 : 1);
    }
  }
  const specs = programOptions(p);
  const src = programSource(p, specs);
  const readConfig = (): ParsedOptions => {
    const parsed = parseOptions(src, argv, process.env);
    if (parsed.positionals.length > 0) throw new OptionError(`unexpected argument "${parsed.positionals[0]}" (see --help)`);
    return parsed;
  };
  let parsed: ParsedOptions;
  try {
    parsed = readConfig();
    if (parsed.help) {
      const commands = Object.entries(p.subcommands ?? {}).map(([name, c]) => ({ name, summary: c.summary }));
      process.stdout.write(formatHelp(p.usage, specs, p.envPrefix, commands));
      return;
    }
    if (parsed.version) {
      process.stdout.write(`${versionLine(p.name)}\n`);
      return;
    }
    p.validate?.(parsed.values);
    if (parsed.checkConfig) {
      process.stdout.write(formatConfig(specs, parsed.values, parsed.origin, parsed.configPath));
      return;
    }
  } catch (e) {
    die(e, 2);
  }

  const log = loggerFor(parsed.values);
  const reload = new ReloadRegistry();
  reload.register({ what: "log level", options: ["log-level"], apply: (v) => log.setLevel(v["log-level"] as LogLevel) });
  const live = new LiveOptions(specs, reload, parsed.values, log);
  let phase: "starting" | "running" | "stopping" = "starting";
  let hupWhileStarting = false;
  /** Read through a function: the signal handlers change `phase` while start() runs. */
  const stopRequested = () => phase === "stopping";
  let reloading = Promise.resolve();

  const onHup = () => {
    if (phase === "starting") return void (hupWhileStarting = true);
    if (phase === "stopping") return;
    reloading = reloading.then(async () => {
      log.info("SIGHUP: re-reading the configuration", { config: parsed.configPath });
      let next: OptionValues;
      try {
        next = readConfig().values;
        p.validate?.(next);
      } catch (e) {
        log.error("configuration not reloaded; the running one is kept", { err: (e as Error).message });
        return;
      }
      await live.reloadLocal(next);
      await running?.reload?.().catch((e) => log.error("reload failed", { err: (e as Error).message }));
    });
  };
  // Installed before start: a SIGHUP must never end the program, not even while it starts.
  process.on("SIGHUP", onHup);

  const timeoutMs = Number(parsed.values["shutdown-timeout"]);
  /** What start() returns (a failed start exits the program). */
  let started: Promise<Running | undefined> = Promise.resolve(undefined);
  const stop = async (sig: string) => {
    if (phase === "stopping") {
      log.warn(`${sig} again: exiting without waiting`);
      process.exit(1);
    }
    const starting = phase === "starting";
    phase = "stopping";
    log.info(starting ? `${sig} while starting: stopping once started` : `${sig}: draining and stopping`, { timeoutMs });
    // The deadline counts from the signal, also while the start is still running.
    const deadline = setTimeout(() => {
      log.error("shutdown did not finish in time; exiting anyway", { timeoutMs });
      process.exit(1);
    }, timeoutMs);
    try {
      const running = await started.catch(() => undefined);
      await reloading;
      await running?.stop();
    } catch (e) {
      log.error("shutdown failed", { err: (e as Error).message });
      process.exit(1);
    }
    clearTimeout(deadline);
    log.info("stopped");
    process.exit(0);
  };
  // Also installed before start: a stop signal that came once start() had logged that it was
  // up but before it returned ended the program by the signal's default action (exit 143),
  // without draining.
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));

  let running: Running | undefined;
  try {
    started = p.start(parsed.values, { log, reload, live, origin: parsed.origin });
    running = await started;
  } catch (e) {
    die(e, 2, log.level === "debug");
  }
  const uncovered = reload.uncovered(specs);
  if (uncovered.length > 0) log.error("bug: reloadable options without a reload handler", { options: uncovered });
  // A stop signal while starting: stop() runs now that start() has returned.
  if (stopRequested()) return;
  phase = "running";
  if (hupWhileStarting) onHup();
}
