import { closeSync, existsSync, fsyncSync, linkSync, openSync, renameSync, rmSync } from "node:fs";
import type { Logger } from "../../src/log/logger.ts";
import { launcherVersion, PROBATION_ENV } from "./launcher.ts";
import { binaryPaths, programArgs } from "./paths.ts";
import { readUpgradeState, updateAttempt, writeUpgradeState } from "./state.ts";

export interface GuardPlan {
  dataDir: string;
  version: string;
  /** How long the new version has to connect and have a batch acknowledged. */
  deadlineMs: number;
  /** How long it gets to stop when told (its --shutdown-timeout). */
  stopMs: number;
  log: Logger;
  /** Replaces this process with `binary` (the default); tests watch it instead. */
  restart?: (binary: string) => void;
}

export interface Guard {
  /** SIGTERM while guarding: the new version stops, the upgrade counts as interrupted. */
  stop(): Promise<void>;
}

const POLL_MS = 200;

/**
 * The probation (docs/fleet.md, "Upgrades"). The old version, its own agent stopped, starts the
 * verified new binary as its child and watches it: it must write "proven" in the state file
 * (it connected and had a batch acknowledged) before the deadline. Then the old version stops
 * it, renames it over the installed binary (the one before kept as .previous) and re-executes
 * itself into it, in place. If the child exits (a build that cannot even start) or the deadline
 * passes, the old version stops it, deletes it and re-executes itself: the previous binary is
 * back, and reports the failure. Until a new version has proven itself it is never where the
 * next start would run it, so a crash or a reboot during probation also ends on the old one.
 */
export function startGuard(plan: GuardPlan): Guard {
  const { dataDir, log } = plan;
  const p = binaryPaths(dataDir);
  const started = Date.now();
  const deadline = started + plan.deadlineMs;
  updateAttempt(dataDir, { state: "probation", guard: process.pid, deadline });
  const child = Bun.spawn([p.next, ...programArgs()], {
    stdio: ["ignore", "inherit", "inherit"],
    env: { ...process.env, [PROBATION_ENV]: String(process.pid) },
  });
  let exit: string | undefined;
  void child.exited.then((code) => {
    exit = child.signalCode ? `was killed by ${child.signalCode}` : `exited with code ${code}`;
  });
  log.info("upgrade: the new version runs on probation", { version: plan.version, pid: child.pid, deadlineSeconds: plan.deadlineMs / 1000 });
  // A reload asked of the agent (systemctl reload) is the running version's to do.
  const forwardHup = () => child.kill("SIGHUP");
  process.on("SIGHUP", forwardHup);
  let ending = false;

  const stopChild = async () => {
    process.off("SIGHUP", forwardHup);
    if (exit !== undefined) return;
    child.kill("SIGTERM");
    const killed = setTimeout(() => child.kill("SIGKILL"), plan.stopMs);
    await child.exited;
    clearTimeout(killed);
  };
  const restart =
    plan.restart ??
    ((binary: string) => {
      log.info("upgrade: re-executing", { binary });
      process.execve!(binary, [binary, ...programArgs()], withoutProbation());
    });
  const fail = async (reason: string) => {
    ending = true;
    await stopChild();
    rmSync(p.next, { force: true });
    updateAttempt(dataDir, { state: "failed", reason, rolledBack: true, guard: undefined, deadline: undefined });
    log.error("upgrade failed: the previous version runs again", { version: plan.version, reason });
    restart(process.execPath);
  };
  const commit = async () => {
    ending = true;
    await stopChild();
    install(p);
    const s = readUpgradeState(dataDir);
    writeUpgradeState(dataDir, { ...s, installed: { version: plan.version, launcher: launcherVersion() }, last: s.last && { ...s.last, state: "installed", guard: undefined, deadline: undefined, at: Date.now() } });
    log.info("upgrade: the new version proved itself and is installed", { version: plan.version, binary: p.current });
    restart(p.current);
  };

  const timer = setInterval(() => {
    if (ending) return;
    const state = readUpgradeState(dataDir).last?.state;
    if (state === "proven") void commit();
    else if (exit !== undefined) void fail(`the new version ${exit} ${((Date.now() - started) / 1000).toFixed(1)} s after it started, before a batch was acknowledged`);
    else if (Date.now() > deadline) void fail(`the new version had no batch acknowledged within ${plan.deadlineMs / 1000} s`);
  }, POLL_MS);

  return {
    async stop() {
      clearInterval(timer);
      if (ending) return;
      ending = true;
      await stopChild();
      rmSync(p.next, { force: true });
      const last = readUpgradeState(dataDir).last;
      updateAttempt(dataDir, { state: "interrupted", interruptions: (last?.interruptions ?? 0) + 1, reason: "the agent was stopped during the probation", guard: undefined });
      log.warn("stopped during an upgrade's probation: the version before stays", { version: plan.version });
    },
  };
}

function withoutProbation(): Record<string, string> {
  const env = { ...process.env } as Record<string, string>;
  delete env[PROBATION_ENV];
  return env;
}

/** The proven binary in place: the installed one kept as .previous (a hard link), then the new one renamed over it. */
function install(p: ReturnType<typeof binaryPaths>): void {
  if (existsSync(p.current)) {
    const tmp = `${p.previous}.tmp`;
    rmSync(tmp, { force: true });
    linkSync(p.current, tmp);
    renameSync(tmp, p.previous);
  }
  renameSync(p.next, p.current);
  const dir = openSync(p.dir, "r");
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}
