/**
 * What an agent tells the collector about itself for fleet management (docs/fleet.md): its
 * tags, by which a remote configuration selects a group of feeds, and the options it pins,
 * which a remote configuration may not change. Both are local only: a collector cannot move an
 * agent between groups, nor unpin what its owner pinned.
 */
import { OptionError, type OptionSpec, type OptionValues } from "../config/options.ts";
import { REMOTE_OPTION_NAMES } from "./remote-names.ts";

export const MAX_TAGS = 32;
const TAG_KEY = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;
const MAX_TAG_VALUE = 256;

export const fleetOptions: OptionSpec[] = [
  {
    name: "tags",
    kind: "list",
    default: [],
    help: "key=value tags of this agent (site=paris,role=edge), sent to the collector when connecting; a remote configuration may be rolled out to the feeds with given tags (docs/fleet.md)",
  },
  {
    name: "pin",
    kind: "list",
    default: [],
    help: `options a remote configuration from the collector may not change (the local value is kept): any of ${REMOTE_OPTION_NAMES.join(", ")}, or * for all of them (docs/fleet.md)`,
  },
];

/** The tags of `--tags` as a map; OptionError naming the first bad one. */
export function parseTags(list: readonly string[]): Record<string, string> {
  if (list.length > MAX_TAGS) throw new OptionError(`--tags: at most ${MAX_TAGS} tags`);
  const out: Record<string, string> = {};
  for (const item of list) {
    const eq = item.indexOf("=");
    const key = eq < 0 ? item : item.slice(0, eq);
    const value = eq < 0 ? "" : item.slice(eq + 1);
    if (!TAG_KEY.test(key)) throw new OptionError(`--tags: "${item}" is not key=value with a key of letters, digits, _ . - (starting with a letter or _)`);
    if (value === "" || value.length > MAX_TAG_VALUE) throw new OptionError(`--tags: the value of ${key} must have 1 to ${MAX_TAG_VALUE} characters`);
    if (key in out) throw new OptionError(`--tags: ${key} is given twice`);
    out[key] = value;
  }
  return out;
}

/** Options a remote configuration may not change: "all" for `*`. OptionError for a name that is not remotely settable. */
export function pinnedOptions(values: OptionValues): ReadonlySet<string> | "all" {
  const list = (values.pin as string[] | undefined) ?? [];
  if (list.includes("*")) return "all";
  for (const name of list) {
    if (!(REMOTE_OPTION_NAMES as readonly string[]).includes(name)) throw new OptionError(`--pin: ${name} is not an option a remote configuration can set (${REMOTE_OPTION_NAMES.join(", ")}, or *)`);
  }
  return new Set(list);
}
