import { hostname } from "node:os";
import type { OptionValues } from "../../src/config/options.ts";

/** Letters, digits, dot, dash, underscore: safe in a metric id, a lease owner and a log line. */
const NODE_NAME = /^[A-Za-z0-9._-]{1,64}$/;

/** Why a --node-name is refused, or undefined when it is fine. */
export function nodeNameProblem(name: string): string | undefined {
  return NODE_NAME.test(name) ? undefined : `"${name.slice(0, 80)}" must be 1 to 64 letters, digits, '.', '-' or '_'`;
}

/**
 * This collector's name among those sharing a database: --node-name, else the host name (made
 * safe), so that it stays the same across restarts and its self-metrics go on in the same series.
 */
export function nodeNameOf(values: OptionValues): string {
  const given = values["node-name"];
  if (given !== undefined && String(given) !== "") return String(given);
  return hostname().replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 64) || "collector";
}
