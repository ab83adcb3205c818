/**
 * The limits of the agent's buffers (docs/storage.md, "The agent's buffer"): in `src/` beside
 * the other agent option schemas, so that the collector checks a remote configuration
 * (docs/fleet.md) with the same code. They apply while the agent runs (SIGHUP, or a remote
 * configuration): a lower limit drops the oldest points at the next tick, counted as always.
 */
import type { OptionSpec } from "../config/options.ts";

const DAY = 86_400_000;
const MB = 1024 ** 2;

export const bufferLimitOptions: OptionSpec[] = [
  {
    name: "buffer-max-bytes",
    kind: "size",
    min: MB,
    max: 1024 ** 4,
    default: "256MiB",
    reloadable: true,
    help: "buffer size limit; beyond it the oldest points are dropped and counted (re-read on SIGHUP)",
  },
  { name: "buffer-max-age", kind: "duration", min: 60_000, max: 365 * DAY, default: "30d", reloadable: true, help: "points buffered longer than this are dropped and counted (re-read on SIGHUP)" },
  {
    name: "events-buffer-max-bytes",
    kind: "size",
    min: 64 * 1024,
    max: 1024 ** 4,
    default: "32MiB",
    reloadable: true,
    help: "size limit of the buffer of alerts and events fired by local triggers; beyond it the oldest are dropped and counted (re-read on SIGHUP)",
  },
];
