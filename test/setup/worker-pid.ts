/**
 * Setup of every test file: the worker leaves its pid and test file in the run's watch folder,
 * so that the stall watchdog in vitest's main process (test/setup/stall-watchdog.ts) can find
 * the process of a file that stopped answering, and the test it began last. One file per worker process (vitest's forks
 * pool isolates files), so the pid names the file.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeEach, expect } from "vitest";
import { STALL_MINUTES_ENV, WATCH_DIR_ENV } from "./stall-watchdog.ts";

const dir = process.env[WATCH_DIR_ENV];
// Not handed on to the programs the tests start: they refuse variables they do not know.
delete process.env[WATCH_DIR_ENV];
delete process.env[STALL_MINUTES_ENV];
const file = expect.getState().testPath;
if (dir && file) {
  writeFileSync(join(dir, String(process.pid)), file);
  // Written before each test, synchronously: a worker that then blocks cannot report it otherwise.
  beforeEach((ctx) => writeFileSync(join(dir, `${process.pid}.test`), ctx.task.fullName));
}
