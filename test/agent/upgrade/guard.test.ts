/**
 * The probation guard with real child processes: a new binary that exits at start, or that
 * never proves itself within the deadline, is stopped and deleted and the previous one restarts;
 * one that proves itself is renamed over the installed binary, the one before kept; a stop
 * during the probation stops the child and leaves the version before in place.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startGuard } from "../../../agent/upgrade/guard.ts";
import { startFromInstalled } from "../../../agent/upgrade/launcher.ts";
import { binaryPaths } from "../../../agent/upgrade/paths.ts";
import { readUpgradeState, updateAttempt, writeUpgradeState } from "../../../agent/upgrade/state.ts";
import { OUTPOST_VERSION } from "../../../src/config/version.ts";
import { createLogger } from "../../../src/log/logger.ts";
import { waitFor } from "../../helpers/ports.ts";

const log = createLogger("silent");
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A data folder with a new "binary" (a shell script) on probation. */
function onProbation(script: string) {
  const dataDir = mkdtempSync(join(tmpdir(), "outpost-guard-"));
  dirs.push(dataDir);
  const p = binaryPaths(dataDir);
  mkdirSync(p.dir, { recursive: true });
  writeFileSync(p.next, `#!/bin/sh\n${script}\n`);
  chmodSync(p.next, 0o700);
  writeUpgradeState(dataDir, { last: { rollout: "r1", version: "9.0.0", from: OUTPOST_VERSION, state: "probation", at: Date.now() } });
  const restarts: string[] = [];
  const guard = (deadlineMs = 20_000) => startGuard({ dataDir, version: "9.0.0", deadlineMs, stopMs: 2000, log, restart: (b) => void restarts.push(b) });
  return { dataDir, p, restarts, guard };
}

describe("the probation guard", () => {
  it("puts the previous version back when the new one exits at start", async () => {
    const t = onProbation("exit 3");
    t.guard();
    await waitFor("the restart", () => t.restarts[0], 10_000);
    expect(t.restarts).toEqual([process.execPath]);
    expect(readUpgradeState(t.dataDir).last).toMatchObject({ state: "failed", rolledBack: true, reason: expect.stringMatching(/^the new version exited with code 3 [\d.]+ s after it started, before a batch was acknowledged$/) });
    expect(existsSync(t.p.next)).toBe(false);
    expect(existsSync(t.p.current)).toBe(false);
  });

  it("stops a new version that had no batch acknowledged by the deadline", async () => {
    const t = onProbation("exec sleep 60");
    t.guard(1000);
    await waitFor("the restart", () => t.restarts[0], 10_000);
    expect(readUpgradeState(t.dataDir).last).toMatchObject({ state: "failed", rolledBack: true, reason: "the new version had no batch acknowledged within 1 s" });
    expect(existsSync(t.p.next)).toBe(false);
  });

  it("installs a new version that proved itself, keeping the one it replaces", async () => {
    const t = onProbation("exec sleep 60");
    writeFileSync(t.p.current, "the installed one");
    const newer = readFileSync(t.p.next, "utf8");
    t.guard();
    await Bun.sleep(300);
    expect(t.restarts).toEqual([]);
    updateAttempt(t.dataDir, { state: "proven" });
    await waitFor("the restart", () => t.restarts[0], 10_000);
    expect(t.restarts).toEqual([t.p.current]);
    expect(readFileSync(t.p.current, "utf8")).toBe(newer);
    expect(readFileSync(t.p.previous, "utf8")).toBe("the installed one");
    expect(existsSync(t.p.next)).toBe(false);
    const s = readUpgradeState(t.dataDir);
    expect(s.installed).toEqual({ version: "9.0.0", launcher: OUTPOST_VERSION });
    expect(s.last).toMatchObject({ state: "installed", version: "9.0.0" });
  });

  it("stopped during the probation, stops the new version and keeps the one before; the next start winds it up", async () => {
    const t = onProbation("exec sleep 60");
    const g = t.guard();
    await Bun.sleep(300);
    await g.stop();
    expect(t.restarts).toEqual([]);
    expect(existsSync(t.p.next)).toBe(false);
    expect(readUpgradeState(t.dataDir).last).toMatchObject({ state: "interrupted", interruptions: 1 });

    // A guard killed outright leaves "probation" behind: the next start winds it up the same way.
    const k = onProbation("exit 0");
    startFromInstalled(k.dataDir, log);
    expect(existsSync(k.p.next)).toBe(false);
    expect(readUpgradeState(k.dataDir).last).toMatchObject({ state: "interrupted", interruptions: 1 });
  });
});
