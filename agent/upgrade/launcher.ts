import { existsSync, realpathSync, rmSync } from "node:fs";
import type { Logger } from "../../src/log/logger.ts";
import { OUTPOST_VERSION } from "../../src/config/version.ts";
import { binaryPaths, isCompiled, programArgs } from "./paths.ts";
import { readUpgradeState, updateAttempt, writeUpgradeState } from "./state.ts";

/** Set for the new binary a guard starts on probation (guard.ts). */
export const PROBATION_ENV = "OUTPOST_UPGRADE_PROBATION";
/** Set by the binary that was started (the package's) when it hands over: its version. */
export const LAUNCHER_ENV = "OUTPOST_UPGRADE_LAUNCHER";

/** The version of the binary that was started (this one, or the one that handed over to it). */
export function launcherVersion(): string {
  return process.env[LAUNCHER_ENV] ?? OUTPOST_VERSION;
}

const same = (a: string, b: string) => {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
};

/**
 * Run at every start before anything is opened (docs/fleet.md, "Upgrades"). The binary started
 * (the package's /usr/bin/outpost-agent, say, which the agent cannot write) hands over to the
 * one a rollout installed in <data-dir>/bin by re-executing it in place (same pid, so systemd
 * follows), unless it was itself replaced since (a package upgrade wins over a rollout). A
 * probation that a stop or a crash of its guard interrupted is wound up: its binary was never
 * put in place, so nothing needs putting back. Returns only when this process goes on starting.
 */
export function startFromInstalled(dataDir: string, log: Logger): void {
  if (process.env[PROBATION_ENV]) return;
  const p = binaryPaths(dataDir);
  const s = readUpgradeState(dataDir);
  if (s.last && (s.last.state === "probation" || s.last.state === "proven")) {
    rmSync(p.next, { force: true });
    updateAttempt(dataDir, { state: "interrupted", interruptions: (s.last.interruptions ?? 0) + 1, reason: "the agent stopped during the probation" });
    log.warn("the probation of an upgrade was interrupted; the version before goes on, and the upgrade is tried again if still ordered", { version: s.last.version });
  }
  if (!isCompiled() || !s.installed || same(process.execPath, p.current)) return;
  if (s.installed.launcher !== OUTPOST_VERSION) {
    log.warn(`this binary (${OUTPOST_VERSION}) is not the one started when a rollout installed ${s.installed.version} in ${p.dir}: it was replaced (a package upgrade?) and runs itself`);
    writeUpgradeState(dataDir, { ...readUpgradeState(dataDir), installed: undefined });
    return;
  }
  if (!existsSync(p.current)) {
    log.warn(`the binary a rollout installed (${s.installed.version}) is gone from ${p.dir}; this one runs`);
    writeUpgradeState(dataDir, { ...readUpgradeState(dataDir), installed: undefined });
    return;
  }
  log.info("handing over to the binary a rollout installed", { version: s.installed.version, binary: p.current });
  process.execve!(p.current, [p.current, ...programArgs()], { ...process.env, [LAUNCHER_ENV]: OUTPOST_VERSION } as Record<string, string>);
}
