import type { OptionOrigin, OptionValues } from "../../src/config/options.ts";
import { findLocalCollector } from "../../src/config/local-collector.ts";
import type { Logger } from "../../src/log/logger.ts";
import { portNote } from "../../src/protocol/broker-url.ts";

export const DEFAULT_BROKER = "mqtt://127.0.0.1:1883";

/**
 * The broker the agent connects to: --broker when given (a missing port is the scheme's default,
 * and the log says so); else the broker of a collector this user runs on this machine, from the
 * file it leaves in the user's runtime folder (src/config/local-collector.ts); else
 * mqtt://127.0.0.1:1883. The log names the choice and why.
 */
export function chooseBroker(values: OptionValues, origin: Record<string, OptionOrigin> | undefined, log: Logger): string {
  const given = String(values.broker ?? DEFAULT_BROKER);
  if (origin === undefined || origin.broker !== "default") {
    const note = portNote(given);
    if (note) log.info(`--broker ${note}`);
    return given;
  }
  const local = findLocalCollector();
  if (local && "found" in local) {
    log.info("broker: the collector running on this machine", { broker: local.found.broker, from: local.file });
    return local.found.broker;
  }
  if (local) log.warn("not using the local collector's broker file", { problem: local.problem, broker: DEFAULT_BROKER });
  return DEFAULT_BROKER;
}
