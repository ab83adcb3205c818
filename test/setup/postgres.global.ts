/**
 * Global setup of every test run: the folder of the run's own PostgreSQL server
 * (test/helpers/postgres-server.ts), named to the test processes in TEST_POSTGRES_DIR; the server
 * is made there on first use and stopped, with the folder, when the run ends. Each vitest
 * project calls this; the first call makes the folder, the others share it.
 */
import { rmSync } from "node:fs";
import { makeRunFolder, stopServer } from "../helpers/postgres-server.ts";

let made: string | undefined;
let users = 0;

export default function setup(): () => void {
  // Another server named, or a folder of an enclosing run (a test that runs vitest): not ours.
  if (process.env.TEST_POSTGRES_URL || (process.env.TEST_POSTGRES_DIR && !made)) return () => undefined;
  made ??= makeRunFolder();
  const dir = made;
  process.env.TEST_POSTGRES_DIR = dir;
  users++;
  return () => {
    if (--users > 0) return;
    made = undefined;
    stopServer(dir);
    rmSync(dir, { recursive: true, force: true });
    delete process.env.TEST_POSTGRES_DIR;
  };
}
