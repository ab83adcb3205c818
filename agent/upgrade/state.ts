import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from "node:fs";
import { join } from "node:path";

/*
 * The agent's upgrade state (docs/fleet.md, "Upgrades"), in `upgrade.json` of its data folder:
 * what the last upgrade is doing or did, and which binary a rollout installed. The process that
 * starts reads it to know whether it is a new version on probation, the version just installed
 * or the old one put back, and what to report; it is written whole, atomically, at each step.
 */

/** probation: the new binary runs, watched; proven: it had a batch acknowledged; interrupted: the agent was stopped meanwhile. */
export type AttemptState = "probation" | "proven" | "installed" | "failed" | "interrupted";

export interface Attempt {
  rollout: string;
  version: string;
  /** The version that ran before. */
  from: string;
  state: AttemptState;
  reason?: string;
  rolledBack?: boolean;
  /** When the state was set, ms. */
  at: number;
  /** Probation: the guard's pid, and when the new version must have proven itself. */
  guard?: number;
  deadline?: number;
  /** Starts of this rollout's version that were interrupted. */
  interruptions?: number;
}

export interface UpgradeStateFile {
  last?: Attempt;
  /** The binary a rollout installed in <data-dir>/bin, and the version of the binary that was started then (the package's, say). */
  installed?: { version: string; launcher: string };
}

export const STATE_FILE = "upgrade.json";

export function readUpgradeState(dataDir: string): UpgradeStateFile {
  try {
    const v = JSON.parse(readFileSync(join(dataDir, STATE_FILE), "utf8")) as unknown;
    return v !== null && typeof v === "object" ? (v as UpgradeStateFile) : {};
  } catch {
    // Missing (no upgrade yet) or unreadable: nothing is known, and nothing is on probation.
    return {};
  }
}

/** Written to a temporary file, synced, then renamed over the old one: a crash leaves the old or the new state. */
export function writeUpgradeState(dataDir: string, s: UpgradeStateFile): void {
  const path = join(dataDir, STATE_FILE);
  const tmp = `${path}.${process.pid}.tmp`;
  const fd = openSync(tmp, "w", 0o600);
  try {
    writeSync(fd, `${JSON.stringify(s, null, 1)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}

/** Changes the last attempt (read again first: another process of the agent may have written it). */
export function updateAttempt(dataDir: string, change: Partial<Attempt>): UpgradeStateFile {
  const s = readUpgradeState(dataDir);
  if (!s.last) return s;
  const next = { ...s, last: { ...s.last, ...change, at: Date.now() } };
  writeUpgradeState(dataDir, next);
  return next;
}
