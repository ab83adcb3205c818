/**
 * `npm test`: vitest over the suite, with a watch folder for the stall watchdog
 * (test/setup/stall-watchdog.ts). A file whose worker stopped answering was killed, named and
 * counted as failed by the first run; when those are the run's only failures, each is run once
 * more on its own, and the suite passes only if they pass then. Any other failure fails the
 * suite as it is. Arguments go to vitest (`npm test -- test/codec`).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { STALLED_FILE, WATCH_DIR_ENV } from "./stall-watchdog.ts";
import { RESULT_FILE, type RunResult } from "./summary-line.ts";

const VITEST = ["--bun", "node_modules/vitest/vitest.mjs", "run"];

async function vitest(args: string[]): Promise<{ code: number; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), "outpost-test-watch-"));
  const child = Bun.spawn([process.execPath, ...VITEST, ...args], {
    stdio: ["inherit", "inherit", "inherit"],
    env: { ...process.env, [WATCH_DIR_ENV]: dir },
  });
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  process.on("SIGINT", forward).on("SIGTERM", forward);
  const code = await child.exited;
  process.off("SIGINT", forward).off("SIGTERM", forward);
  return { code, dir };
}

function read(dir: string, file: string): string | undefined {
  try {
    return readFileSync(join(dir, file), "utf8");
  } catch {
    return undefined;
  }
}

const first = await vitest(process.argv.slice(2));
const stalled = (read(first.dir, STALLED_FILE) ?? "").split("\n").filter(Boolean);
const result = JSON.parse(read(first.dir, RESULT_FILE) ?? "null") as RunResult | null;
rmSync(first.dir, { recursive: true, force: true });
if (stalled.length === 0 || result === null) process.exit(first.code);

// Only the stalled files failed, and the only unhandled errors are the pool's word of their killed workers.
const onlyStalls =
  result.failedFiles.every((f) => stalled.includes(f.id)) &&
  result.unhandled.length <= stalled.length &&
  result.unhandled.every((m) => m.includes("[vitest-pool]"));
if (!onlyStalls) {
  process.stdout.write(`\n${stalled.length} file(s) stalled and other tests failed: not re-run\n`);
  process.exit(first.code || 1);
}

// The stalled files' tests are counted from their second run only.
const passedInStalled = result.failedFiles.reduce((n, f) => n + f.passed, 0);
const total = { ...result.counts, passed: result.counts.passed - passedInStalled, failed: 0 };
let code = 0;
for (const entry of stalled) {
  const [project, file] = entry.split("\t") as [string, string];
  process.stdout.write(`\nre-running once the file that stalled: ${file} (project ${project})\n`);
  const again = await vitest(["--project", project, file]);
  const r = JSON.parse(read(again.dir, RESULT_FILE) ?? "null") as RunResult | null;
  const stalledAgain = read(again.dir, STALLED_FILE);
  rmSync(again.dir, { recursive: true, force: true });
  if (again.code !== 0 || r === null || stalledAgain) code = again.code || 1;
  if (r) {
    total.passed += r.counts.passed;
    total.failed += r.counts.failed;
    total.skipped += r.counts.skipped;
  } else total.failed += 1;
}
process.stdout.write(
  `\nvitest: ${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped (${stalled.length} file(s) stalled, killed and re-run once)\n`,
);
process.exit(code || (total.failed > 0 ? 1 : 0));
