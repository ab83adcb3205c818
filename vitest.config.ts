import { defineConfig } from "vitest/config";
import { StallWatchdog } from "./test/setup/stall-watchdog.ts";
import { SummaryLine } from "./test/setup/summary-line.ts";

const POSTGRES_SUITES = [
  "test/alerts-api/**/*.test.ts",
  "test/inventory/*.test.ts",
  "test/forecast/datamining-http.test.ts",
  ...["fleet", "fleet-management", "null-as-absent", "conventions", "operations-triggers", "value-precision"].map((f) => `test/collector/${f}.test.ts`),
  "test/collector/metrics/*.test.ts",
  ...["ingest", "query-api"].map((f) => `test/collector/prometheus/${f}.test.ts`),
  "test/fleet/upgrades-api.test.ts",
];

export default defineConfig({
  test: {
    // vmThreads/vmForks break bun:sqlite; forks works under `bun --bun`.
    pool: "forks",
    // Two files at a time: vitest's default in a run is one fewer than the cores (1 here), while
    // most files wait on processes, brokers and timers rather than compute (docs: README, Tests).
    maxWorkers: 2,
    // The run's own PostgreSQL server (test/helpers/postgres-server.ts), made on first use.
    globalSetup: ["test/setup/postgres.global.ts"],
    // A private runtime folder per test file (collectors' broker files, src/config/local-collector.ts).
    setupFiles: ["test/setup/private-runtime-dir.ts", "test/setup/worker-pid.ts", "test/setup/property-time-limit.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // A file whose worker stops answering is killed and named (test/setup/stall-watchdog.ts).
    reporters: ["default", new SummaryLine(), new StallWatchdog()],
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
          setupFiles: ["test/setup/private-runtime-dir.ts", "test/setup/worker-pid.ts", "test/setup/property-time-limit.ts", "test/helpers/postgres-backend.setup.ts"],
        },
      },
    ],
  },
});
