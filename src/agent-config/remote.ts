/**
 * Remote configuration (docs/fleet.md): the agent options a collector may set on a feed or a
 * group of feeds, checked by the one schema both programs use (the collector before it accepts
 * a revision, the agent before it applies one), and the rule that merges them with the local
 * configuration.
 *
 * A remote configuration is a JSON object of option names to values written as in the agent's
 * TOML file: {"log-level": "debug", "host-interval": "30s", "inputs": {"prometheus": [...]}}.
 */
import { suggestion } from "../config/closest.ts";
import { commonOptions } from "../config/common-options.ts";
import { convertOption, OptionError, type OptionSpec, type OptionValues } from "../config/options.ts";
import { bufferLimitOptions } from "./buffer.ts";
import { hostMetricOptions } from "./host-metrics.ts";
import { inputsOption } from "./inputs.ts";
import { REMOTE_OPTION_NAMES, type RemoteOptionName } from "./remote-names.ts";

export { REMOTE_OPTION_NAMES, type RemoteOptionName };

/** The JSON of one remote configuration, at most (a few hundred scrape jobs fit). */
export const MAX_REMOTE_CONFIG_BYTES = 256 * 1024;

const ALL_SPECS: readonly OptionSpec[] = [...commonOptions({ shutdownTimeout: "10s" }), inputsOption, ...hostMetricOptions, ...bufferLimitOptions];

/** The schema of each remotely settable option: the very specs the agent reads its file with. */
export const REMOTE_OPTION_SPECS: ReadonlyMap<string, OptionSpec> = new Map(
  REMOTE_OPTION_NAMES.map((name) => {
    const spec = ALL_SPECS.find((s) => s.name === name);
    if (!spec) throw new Error(`bug: no schema for remote option ${name}`);
    return [name, spec];
  }),
);

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * Checks a remote configuration and converts it to option values (durations in ms, sizes in
 * bytes, the inputs table read and checked). Throws OptionError with one line naming the first
 * problem: an option that is unknown or not settable remotely, or a value its schema refuses.
 */
export function readRemoteConfig(raw: unknown, where = "config"): OptionValues {
  if (!isPlainObject(raw)) throw new OptionError(`${where} must be an object of option names to values`);
  const out: OptionValues = {};
  for (const [name, value] of Object.entries(raw)) {
    const spec = REMOTE_OPTION_SPECS.get(name);
    if (!spec) {
      throw new OptionError(`${where}.${name}: not an option a remote configuration can set (${suggestion(name, REMOTE_OPTION_NAMES)}; settable: ${REMOTE_OPTION_NAMES.join(", ")})`);
    }
    if (value === null || value === undefined) throw new OptionError(`${where}.${name}: expected a value (leave the option out to keep the agent's own)`);
    out[name] = convertOption(spec, value, `${where}.${name}`);
  }
  return out;
}

/** One line saying what is wrong with a remote configuration, or undefined when it is valid. */
export function remoteConfigProblem(raw: unknown): string | undefined {
  try {
    readRemoteConfig(raw);
    return undefined;
  } catch (e) {
    if (e instanceof OptionError) return e.message;
    throw e;
  }
}

/**
 * The merge rule (docs/fleet.md, "Precedence"): for each option the remote configuration sets,
 * its value replaces the local one (flag, environment, file or default) unless the local
 * configuration pins it (`pin`), in which case the local value stays and the option is listed in
 * `kept`. Options the remote configuration leaves out keep their local value.
 */
export function mergeRemote(local: OptionValues, remote: OptionValues, pinned: ReadonlySet<string> | "all"): { values: OptionValues; kept: string[] } {
  const values: OptionValues = { ...local };
  const kept: string[] = [];
  for (const [name, value] of Object.entries(remote)) {
    if (!REMOTE_OPTION_SPECS.has(name)) continue;
    if (pinned === "all" || pinned.has(name)) kept.push(name);
    else values[name] = value;
  }
  return { values, kept };
}
