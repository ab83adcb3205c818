import type { Logger } from "../log/logger.ts";
import { formatHelp, OptionError, type OptionSpec, type OptionValues, parseOptions } from "./options.ts";

export interface Program {
  usage: string;
  options: OptionSpec[];
  envPrefix: string;
  /** TOML section whose keys apply to this program (e.g. "agent"). */
  section: string;
  start(values: OptionValues): Promise<{ log: Logger; stop(): Promise<void> }>;
  /** Start-up errors that are the user's to fix: printed in one line, exit code 2. */
  isUsageError?(e: unknown): boolean;
}

/**
 * The shell of both programs: options (flags, environment, TOML), --help, start, and a clean
 * stop on SIGINT/SIGTERM. Bad options exit with 2 and one line saying what is wrong.
 */
export async function runProgram(p: Program): Promise<void> {
  const usageError = (e: unknown) => e instanceof OptionError || (p.isUsageError?.(e) ?? false);
  const fail = (e: unknown): never => {
    process.stderr.write(`error: ${(e as Error).message}\n`);
    process.exit(2);
  };
  let parsed: ReturnType<typeof parseOptions>;
  try {
    parsed = parseOptions(p.options, process.argv.slice(2), process.env, p.envPrefix, p.section);
  } catch (e) {
    if (usageError(e)) fail(e);
    throw e;
  }
  if (parsed.help) {
    process.stdout.write(formatHelp(p.usage, p.options, p.envPrefix));
    return;
  }
  let running: Awaited<ReturnType<Program["start"]>>;
  try {
    running = await p.start(parsed.values);
  } catch (e) {
    if (usageError(e)) fail(e);
    throw e;
  }
  const stop = async (sig: string) => {
    running.log.info(`received ${sig}, shutting down`);
    await running.stop();
    process.exit(0);
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));
}
