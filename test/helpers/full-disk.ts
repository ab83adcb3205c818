/**
 * Real storage failures for tests, with no mock between the code and SQLite:
 * - `SmallDisk`: a tmpfs of a few MiB mounted for the test (root is needed, as on the
 *   project's machines and CI), filled with a filler file until the disk has no byte left, and
 *   freed again. Every SQLite write that needs space then fails with SQLITE_FULL, as on a full
 *   disk in production.
 * - `failStatements`: a trigger, created through a second connection, that makes every
 *   INSERT (or UPDATE) into one table fail, to break one step of a transaction precisely.
 */
import { Database } from "bun:sqlite";
import { closeSync, mkdtempSync, openSync, rmSync, unlinkSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

function run(cmd: string[]): { ok: boolean; err: string } {
  const r = Bun.spawnSync(cmd, { stdout: "ignore", stderr: "pipe" });
  return { ok: r.exitCode === 0, err: r.stderr.toString().trim() };
}

export class SmallDisk {
  readonly dir: string;
  private fillers = 0;

  /** Mounts a tmpfs of `mib` MiB; fails the test with a clear reason when mounting is not allowed. */
  constructor(mib = 8) {
    this.dir = mkdtempSync(join(tmpdir(), "outpost-small-disk-"));
    const r = run(["mount", "-t", "tmpfs", "-o", `size=${mib}m,mode=0777`, "tmpfs", this.dir]);
    if (!r.ok) {
      rmSync(this.dir, { recursive: true, force: true });
      throw new Error(`this test mounts a ${mib} MiB tmpfs to fill it for real and needs root (mount said: ${r.err})`);
    }
  }

  /** Writes filler files until the disk has no room left. */
  fill(): void {
    const block = new Uint8Array(64 * 1024);
    for (const size of [block.length, 4096, 512, 1]) {
      const part = block.subarray(0, size);
      const path = join(this.dir, `filler-${++this.fillers}`);
      const fd = openSync(path, "w");
      try {
        for (;;) writeSync(fd, part);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "ENOSPC") throw e;
      } finally {
        closeSync(fd);
      }
    }
  }

  /** Removes the filler files: the space is back. */
  free(): void {
    for (let i = 1; i <= this.fillers; i++) {
      try {
        unlinkSync(join(this.dir, `filler-${i}`));
      } catch {}
    }
    this.fillers = 0;
  }

  /** Unmounts (lazily, in case a process still holds a file) and removes the folder. */
  dispose(): void {
    run(["umount", "-l", this.dir]);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * Makes every `op` on `table` of the database at `path` fail (SQLITE_CONSTRAINT_TRIGGER) until
 * the returned function is called. Works while the program under test has the file open.
 */
export function failStatements(path: string, table: string, op: "INSERT" | "UPDATE" | "DELETE" = "INSERT"): () => void {
  const name = `test_fail_${table}_${op.toLowerCase()}`;
  const db = new Database(path);
  db.exec("PRAGMA busy_timeout = 5000");
  db.exec(`CREATE TRIGGER ${name} BEFORE ${op} ON ${table} BEGIN SELECT RAISE(ABORT, 'injected failure of ${op} on ${table}'); END`);
  return () => {
    db.exec(`DROP TRIGGER IF EXISTS ${name}`);
    db.close();
  };
}
