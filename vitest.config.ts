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

const POSTGRES_SUITES = [
  "test/alerts-api/**/*.test.ts",
  "test/inventory/*.test.ts",
  "test/forecast/datamining-http.test.ts",
  ...["fleet", "null-as-absent", "conventions", "operations-triggers", "value-precision"].map((f) => `test/collector/${f}.test.ts`),
  "test/collector/metrics/*.test.ts",
  ...["ingest", "query-api"].map((f) => `test/collector/prometheus/${f}.test.ts`),
];

export default defineConfig({
  test: {
    // vmThreads/vmForks break bun:sqlite; forks works under `bun --bun`.
    pool: "forks",
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ["default", new SummaryLine()],
    projects: [
      // Projects extend the root settings, and would add to a root `include`: each has its own.
      { extends: true, test: { name: "sqlite", include: ["test/**/*.test.ts"] } },
      {
        // The HTTP suites of the stores that have a PostgreSQL backend, again on PostgreSQL
        // (test/helpers/postgres-backend.ts); the store suites themselves cover both engines.
        extends: true,
        test: {
          name: "postgres",
          include: POSTGRES_SUITES,
          // Files that open their stores themselves: they run both engines, or SQLite on purpose.
          exclude: ["**/storage-failures.test.ts", "**/store.test.ts", "**/service-api.test.ts"],
          env: { TEST_STORE_BACKEND: "postgres" },
          setupFiles: ["test/helpers/postgres-backend.setup.ts"],
        },
      },
    ],
  },
});
