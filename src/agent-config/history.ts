/**
 * The agent's local history (`[agent.history]`; docs/storage.md, "The agent's local history"):
 * how long it keeps the points the collector has acknowledged, to answer reads of its own
 * recent data on its local API while the network is down. In `src/` beside the other agent
 * option schemas, so the collector can check a configuration with the same code.
 *
 *   [agent.history]
 *   window = "24h"     # 0 turns it off: acknowledged points are deleted at once
 */
import type { OptionSpec, OptionValues, TableValue } from "../config/options.ts";
import { type FieldSpec, readTable } from "../config/table.ts";

const DAY = 86_400_000;

export const historyFields: FieldSpec[] = [
  {
    name: "window",
    kind: "duration",
    min: 0,
    max: 366 * DAY,
    default: "24h",
    help: "acknowledged points are kept this long after they were buffered, inside --buffer-max-bytes (the backlog not yet acknowledged always first); 0: deleted at once",
  },
];

export interface HistoryConfig {
  windowMs: number;
}

export const historyOption: OptionSpec = {
  name: "history",
  kind: "table",
  help: "the local history: [agent.history] window (default 24h; 0 off), read on the local API like the collector's (docs/storage.md; as JSON when given as a flag or variable)",
  table: (raw, where) => readTable(historyFields, raw, where),
};

/** The history configuration of the options (the defaults when none is given). */
export function historyConfig(values: OptionValues): HistoryConfig {
  const t = (values.history as TableValue | undefined) ?? readTable(historyFields, {}, "history");
  return { windowMs: Number(t.window ?? DAY) };
}
