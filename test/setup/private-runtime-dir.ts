/**
 * Setup of every test file: a runtime folder of its own (XDG_RUNTIME_DIR, 0700), inherited by
 * the programs it starts, so that collectors leave their broker file there
 * (src/config/local-collector.ts) and agents started without --broker look there: never in the
 * user's own runtime folder, which another run or a real collector may use.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";

const dir = mkdtempSync(join(tmpdir(), "outpost-test-runtime-"));
process.env.XDG_RUNTIME_DIR = dir;
afterAll(() => rmSync(dir, { recursive: true, force: true }));
