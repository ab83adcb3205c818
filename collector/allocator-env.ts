/**
 * The allocator's setting for the collector, applied before anything else runs (collector/
 * main.ts imports allocator-setup.ts, which calls applyAllocatorEnv, first). Bun's allocator (mimalloc) hands freed memory back to the system
 * 100 ms after it was freed; under ingest the same memory is needed again a moment later, and
 * taking it back costs a page fault per 4 KiB (on a hypervisor, microseconds each). With 1 s,
 * the collector took about 30–40 % fewer page faults under HTTP ingest at the same peak memory
 * (issue 28, docs/storage.md "Page faults"). mimalloc reads its options when the process starts,
 * so the process replaces itself once (execve: the same process id, arguments and environment,
 * plus MIMALLOC_PURGE_DELAY). Setting MIMALLOC_PURGE_DELAY yourself (100 is mimalloc's default)
 * keeps the process as it is; so does anything but Linux, or a C library that cannot be loaded.
 */
import { dlopen, FFIType, ptr } from "bun:ffi";

export const PURGE_DELAY_MS = "1000";
const VARIABLE = "MIMALLOC_PURGE_DELAY";

/** The C libraries tried, glibc's first. */
const LIBC = ["libc.so.6", `libc.musl-${process.arch === "arm64" ? "aarch64" : "x86_64"}.so.1`];

/** The command line that starts this same program again (from source or as a compiled binary). */
function commandLine(): string[] {
  // A compiled binary's argv[1] is its embedded entry point, not an argument.
  const compiled = import.meta.url.includes("$bunfs");
  return compiled ? [process.execPath, ...process.argv.slice(2)] : [process.execPath, ...process.execArgv, ...process.argv.slice(1)];
}

function reexec(env: Record<string, string | undefined>): void {
  let execve: ((path: unknown, argv: unknown, envp: unknown) => number) | undefined;
  for (const name of LIBC) {
    try {
      execve = dlopen(name, { execve: { args: [FFIType.ptr, FFIType.ptr, FFIType.ptr], returns: FFIType.i32 } }).symbols.execve as typeof execve;
      break;
    } catch {}
  }
  if (!execve) return;
  const cstr = (s: string) => Buffer.from(`${s}\0`, "utf8");
  const args = commandLine().map(cstr);
  const vars = Object.entries(env)
    .filter((e): e is [string, string] => e[1] !== undefined)
    .map(([k, v]) => cstr(`${k}=${v}`));
  const array = (bufs: Buffer[]) => {
    const a = new BigUint64Array(bufs.length + 1);
    bufs.forEach((b, i) => {
      a[i] = BigInt(ptr(b));
    });
    return a;
  };
  const argv = array(args);
  const envp = array(vars);
  // Returns only when it failed: the process then simply goes on with the allocator's defaults.
  execve(ptr(args[0]!), ptr(argv), ptr(envp));
}

/** Starts the process again with the purge delay set, unless it is set already (see above). */
export function applyAllocatorEnv(): void {
  if (process.platform === "linux" && process.env[VARIABLE] === undefined) reexec({ ...process.env, [VARIABLE]: PURGE_DELAY_MS });
}
