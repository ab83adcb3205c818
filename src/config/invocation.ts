/**
 * How a person starts each program, for usage lines and for the commands the programs print:
 * a single-file binary by its own name (`outpost-collector`, or whatever it was renamed to), the
 * other program by its installed name; from source, the npm script it was started with, else
 * `bun collector/main.ts`.
 */
import { basename } from "node:path";

export type ProgramKind = "collector" | "agent";

/** The npm script that starts each program from source (package.json). */
const NPM_SCRIPT: Record<ProgramKind, { event: string; command: string }> = {
  collector: { event: "start", command: "npm start --" },
  agent: { event: "agent", command: "npm run agent --" },
};

/** Whether this process is a single-file binary (bun build --compile): its modules are in Bun's embedded filesystem. */
export function isCompiled(): boolean {
  return Bun.main.startsWith("/$bunfs/");
}

/** The command that starts `program`, as the running process (`self`) would tell a person. */
export function invocation(program: ProgramKind, self: ProgramKind, env: NodeJS.ProcessEnv = process.env): string {
  if (isCompiled()) return program === self ? basename(process.execPath) : `outpost-${program}`;
  // npm passes the script's name to what it runs (and on to its children: only this program's own
  // script counts); started through npm, the other program is started through npm too.
  if (env.npm_lifecycle_event === NPM_SCRIPT[self].event) return NPM_SCRIPT[program].command;
  return `bun ${program}/main.ts`;
}

/** The command of the running program, named by its installed name (outpost-collector, outpost-agent). */
export function selfInvocation(installedName: string): string {
  const kind = installedName.replace(/^outpost-/, "");
  return kind === "collector" || kind === "agent" ? invocation(kind, kind) : isCompiled() ? basename(process.execPath) : installedName;
}
