import type { Logger } from "../log/logger.ts";
import { formatHelp } from "./help.ts";
import { selfInvocation } from "./invocation.ts";
import { OptionError, type OptionSpec, type OptionValues, parseOptions } from "./options.ts";
import { loggerFor, type ProgramIdentity, programOptions, programSource, type Subcommand } from "./run-program.ts";

export interface OptionCommandSpec {
  name: string;
  /** Operands for the help, e.g. "DIR". */
  operands: string;
  summary: string;
  /** Longer text for `PROGRAM COMMAND --help`. */
  description: string;
  /** Options of this command only, beside the program's. */
  options?: OptionSpec[];
  arity: { min: number; max: number };
  run(values: OptionValues, operands: string[], ctx: { log: Logger }): Promise<number>;
}

/**
 * A subcommand that takes the program's own options (so that --config, --data-dir and the
 * environment mean what they mean to the program) plus its own, and operands.
 */
export function optionCommand(p: ProgramIdentity, c: OptionCommandSpec): Subcommand {
  return {
    summary: c.summary,
    async run(argv) {
      const specs = [...programOptions(p), ...(c.options ?? [])];
      const parsed = parseOptions(programSource(p, specs), argv, process.env);
      if (parsed.help) {
        process.stdout.write(formatHelp(`Usage: ${selfInvocation(p.name)} ${c.name}${c.operands ? ` ${c.operands}` : ""} [options]\n\n${c.description}`, specs, p.envPrefix));
        return 0;
      }
      if (parsed.version || parsed.checkConfig) throw new OptionError(`${c.name} does not take --${parsed.version ? "version" : "check-config"}`);
      const n = parsed.positionals.length;
      if (n < c.arity.min || n > c.arity.max) throw new OptionError(`${c.name} takes ${c.operands || "no operands"} (see ${selfInvocation(p.name)} ${c.name} --help)`);
      return c.run(parsed.values, parsed.positionals, { log: loggerFor(parsed.values).child(c.name) });
    },
  };
}
