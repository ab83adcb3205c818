import { defineConfig } from "vitest/config";
import type { Reporter, TestModule } from "vitest/node";

/** Prints one plain closing line that log readers (CI) can parse. */
class SummaryLine implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>) {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const m of testModules) {
      for (const t of m.children.allTests()) {
        const s = t.result().state;
        if (s === "passed") passed++;
        else if (s === "failed") failed++;
        else skipped++;
      }
    }
    process.stdout.write(`\nvitest: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // vmThreads/vmForks break bun:sqlite; forks works under `bun --bun`.
    pool: "forks",
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ["default", new SummaryLine()],
  },
});
