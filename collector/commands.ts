import { optionCommand } from "../src/config/command.ts";
import type { Subcommand } from "../src/config/run-program.ts";
import { authCommand } from "./auth/cli.ts";
import { collectorProgram } from "./config.ts";
import { backupDatabases } from "./operations/backup.ts";
import { restoreDatabases } from "./operations/restore.ts";

const dataDir = (v: Record<string, unknown>) => String(v["data-dir"] ?? "./data");

/** The collector's subcommands; each does its work in collector/operations/. */
export const collectorCommands: Record<string, Subcommand> = {
  auth: authCommand,
  backup: optionCommand(collectorProgram, {
    name: "backup",
    operands: "DIR",
    summary: "copy every database into the new folder DIR, consistently, while the collector runs",
    description: `Copies every database of --data-dir into DIR (created; it must be empty) with SQLite's
VACUUM INTO: each copy is one consistent snapshot, taken while the collector goes on running and
ingesting, and checked afterwards. DIR/manifest.json lists the copies with their schema versions
and SHA-256 sums. Run it as the user the collector runs as. See docs/operations.md.`,
    arity: { min: 1, max: 1 },
    async run(values, [dir], { log }) {
      await backupDatabases(dataDir(values), dir!, log);
      return 0;
    },
  }),
  restore: optionCommand(collectorProgram, {
    name: "restore",
    operands: "DIR",
    summary: "put the backup in DIR back into --data-dir (the collector must be stopped)",
    description: `Checks every database of the backup in DIR (checksum, integrity, schema version), then
replaces the databases of --data-dir with them. The collector must be stopped: the data folder's
lock is taken. The databases replaced are moved to --data-dir/before-restore-<time>/. A backup
made by an older version is upgraded in place when the collector starts. See docs/operations.md.`,
    arity: { min: 1, max: 1 },
    async run(values, [dir], { log }) {
      await restoreDatabases(dir!, dataDir(values), log);
      return 0;
    },
  }),
};
