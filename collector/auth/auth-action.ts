import type { OptionSpec, OptionValues, ParsedOptions } from "../../src/config/options.ts";

/** One `auth` command. */
export interface AuthAction {
  summary: string;
  /** Changes the file: runs under its lock. */
  writes: boolean;
  options: OptionSpec[];
  run(v: OptionValues, origin: ParsedOptions["origin"]): Promise<void>;
}
