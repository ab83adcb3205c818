import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Reporter, SerializedError, TestCase, TestModule, TestSuite } from "vitest/node";
import { WATCH_DIR_ENV } from "./stall-watchdog.ts";

/** What test/setup/run-suite.ts reads of a run: the files that failed and the unhandled errors. */
export const RESULT_FILE = "result.json";
export interface RunResult {
  counts: Counts;
  /** Each file with a failure (`project<TAB>file`), and how many of its tests passed. */
  failedFiles: { id: string; passed: number }[];
  unhandled: string[];
}

export interface Counts {
  passed: number;
  failed: number;
  skipped: number;
}

/** Whether a suite or module above the test has errors of its own (a hook threw): then the test never ran. */
function parentFailed(t: TestCase): boolean {
  for (let p: TestSuite | TestModule = t.parent; ; p = p.parent) {
    if (p.errors().length > 0) return true;
    if (p.type === "module") return false;
  }
}

/**
 * What ran, honestly: a test that did not run because its file or a hook failed is a failure,
 * not a skip; a file that failed with no test to blame (it did not load, an afterAll threw)
 * counts as one failure; so does every unhandled error. Skipped: only what was asked to skip.
 */
export function countRun(modules: ReadonlyArray<TestModule>, unhandled: ReadonlyArray<SerializedError> = [], failedFiles: RunResult["failedFiles"] = []): Counts {
  const c: Counts = { passed: 0, failed: unhandled.length, skipped: 0 };
  for (const m of modules) {
    let failedHere = 0;
    const passedBefore = c.passed;
    for (const t of m.children.allTests()) {
      const s = t.result().state;
      if (s === "passed") c.passed++;
      else if (s === "skipped" && !parentFailed(t)) c.skipped++;
      // Failed, never finished (pending at the end), or kept from running by a failed hook.
      else failedHere++;
    }
    const moduleBroken = m.errors().length > 0 || [...m.children.allSuites()].some((s) => s.errors().length > 0);
    if (failedHere === 0 && moduleBroken) failedHere = 1;
    c.failed += failedHere;
    if (failedHere > 0) failedFiles.push({ id: `${m.project.name}\t${m.moduleId}`, passed: c.passed - passedBefore });
  }
  return c;
}

/** Prints one plain closing line that log readers (CI) can parse. */
export class SummaryLine implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError>) {
    const failedFiles: RunResult["failedFiles"] = [];
    const c = countRun(testModules, unhandledErrors, failedFiles);
    const dir = process.env[WATCH_DIR_ENV];
    if (dir) {
      const result: RunResult = { counts: c, failedFiles, unhandled: unhandledErrors.map((e) => String(e.message)) };
      writeFileSync(join(dir, RESULT_FILE), JSON.stringify(result));
    }
    process.stdout.write(`\nvitest: ${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped\n`);
  }
}
