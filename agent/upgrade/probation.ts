import type { Logger } from "../../src/log/logger.ts";
import { PROBATION_ENV } from "./launcher.ts";
import { readUpgradeState, updateAttempt } from "./state.ts";

/**
 * In a new version on probation (started by guard.ts): once the link is up and a batch it sent
 * was acknowledged, it writes "proven" in the state file, which its guard waits for. If the
 * guard is gone (killed), the new version stops too: it must not run on unwatched.
 */
export function watchProbation(o: { dataDir: string; linkReady: () => boolean; lastAckAt: () => number | undefined; log: Logger }): { stop(): void } | undefined {
  const guard = Number(process.env[PROBATION_ENV]);
  if (!Number.isInteger(guard) || guard <= 0) return undefined;
  const started = Date.now();
  let proven = false;
  o.log.info("on probation: this new version must connect and have a batch acknowledged", { guard, deadline: readUpgradeState(o.dataDir).last?.deadline });
  const timer = setInterval(() => {
    if (process.ppid !== guard) {
      o.log.error("the upgrade's guard is gone: stopping this version on probation");
      process.exit(1);
    }
    const ack = o.lastAckAt();
    if (!proven && o.linkReady() && ack !== undefined && ack >= started) {
      proven = true;
      updateAttempt(o.dataDir, { state: "proven" });
      o.log.info("on probation: a batch was acknowledged; telling the guard");
    }
  }, 200);
  return { stop: () => clearInterval(timer) };
}
