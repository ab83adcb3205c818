import { LOG_FORMATS, LOG_LEVELS } from "../log/logger.ts";
import type { OptionSpec } from "./options.ts";
import { ALLOW_OPEN_SECRET_FILES } from "./secret-option.ts";

/**
 * Options of the program shell, the same in both programs: logging and how long a stop may
 * take. The shell adds them to each program's own options (run-program.ts).
 */
export function commonOptions(defaults: { shutdownTimeout: string }): OptionSpec[] {
  return [
    { name: "log-level", kind: "string", default: "info", choices: LOG_LEVELS, reloadable: true, help: "debug, info, warn, error or silent (re-read on SIGHUP)" },
    { name: "log-format", kind: "string", default: "text", choices: LOG_FORMATS, help: "text (one readable line per record) or json (one JSON object per line, for log shippers)" },
    {
      name: ALLOW_OPEN_SECRET_FILES,
      kind: "boolean",
      default: false,
      help: "use a password, token or URL file (the …-file options) that other users can read, with a warning; without it such a file is refused, as ssh refuses an open private key",
    },
    {
      name: "shutdown-timeout",
      kind: "duration",
      default: defaults.shutdownTimeout,
      min: 1000,
      max: 600_000,
      help: "on SIGTERM or SIGINT, the longest wait for work in progress to finish; then the program exits anyway (code 1) and logs it",
    },
  ];
}
