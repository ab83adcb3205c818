import { closeSync, openSync, readSync } from "node:fs";
import { join } from "node:path";
import type { ReleaseInfo } from "./build-info.ts";
import { ROOT, runtimeBinary, TARGETS, type Target } from "./runtimes.ts";

export const PROGRAMS = {
  agent: {
    entry: "agent/main.ts",
    // The agent idles on small devices: a lower JIT tier-up keeps its memory down (docs/install.md).
    extra: ["--compile-jit-policy=1000"],
    summary: "Outpost monitoring agent",
  },
  collector: {
    entry: "collector/main.ts",
    // The worker threads' scripts, bundled as entry points of their own (collector/metrics/worker-slot.ts).
    extra: [],
    workers: ["collector/metrics/json-worker.ts", "collector/metrics/promql-worker.ts", "collector/metrics/rollup-worker.ts"],
    summary: "Outpost monitoring collector",
  },
} as const;
export type Program = keyof typeof PROGRAMS;

const workersOf = (program: Program): readonly string[] => {
  const p = PROGRAMS[program];
  return "workers" in p ? p.workers : [];
};

/** The `bun build` arguments of one single-file binary (without the bun executable). */
export function compileArgs(program: Program, target: Target, info: ReleaseInfo, outfile: string): string[] {
  return [
    "build",
    "--compile",
    "--minify",
    // The binary must not pick up a .env or bunfig.toml from the folder it is started in.
    "--no-compile-autoload-dotenv",
    "--no-compile-autoload-bunfig",
    ...PROGRAMS[program].extra,
    `--target=${TARGETS[target].bunTarget}`,
    // The runtime unpacked from the pinned npm package: no download while building.
    `--compile-executable-path=${runtimeBinary(target)}`,
    "--define",
    `OUTPOST_BUILD_COMMIT=${JSON.stringify(info.commit)}`,
    "--define",
    `OUTPOST_BUILD_DATE=${JSON.stringify(info.date)}`,
    "--define",
    `OUTPOST_BUILD_VERSION=${JSON.stringify(info.version)}`,
    join(ROOT, PROGRAMS[program].entry),
    ...workersOf(program).map((w) => join(ROOT, w)),
    "--outfile",
    outfile,
  ];
}

/** Builds one binary with the bun that runs this script (the pinned dev dependency). */
export async function compile(program: Program, target: Target, info: ReleaseInfo, outfile: string): Promise<void> {
  const p = Bun.spawn([process.execPath, ...compileArgs(program, target, info, outfile)], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  const [code, out, err] = await Promise.all([p.exited, new Response(p.stdout).text(), new Response(p.stderr).text()]);
  if (code !== 0) throw new Error(`bun build of ${program} for ${target} failed:\n${out}${err}`);
}

/** The machine an ELF executable is for (e_machine), to check a build's architecture: its first 20 bytes only. */
export function elfMachine(path: string): number {
  const bytes = new Uint8Array(20);
  const fd = openSync(path, "r");
  try {
    readSync(fd, bytes, 0, 20, 0);
  } finally {
    closeSync(fd);
  }
  if (bytes[0] !== 0x7f || bytes[1] !== 0x45 || bytes[2] !== 0x4c || bytes[3] !== 0x46) throw new Error(`${path} is not an ELF file`);
  return bytes[18]! | (bytes[19]! << 8);
}
