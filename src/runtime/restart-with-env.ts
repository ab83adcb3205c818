/**
 * Settings the runtime reads only when the process starts (the allocator's, the JavaScript
 * engine's), applied by starting the process again at once with them in its environment:
 * execve, so the same process id, arguments and environment plus the variables. A variable
 * already set (by the operator, or by the first start) is kept, and when all are set nothing
 * starts again; nor on anything but Linux, or when the C library cannot be loaded (the process
 * then simply goes on with the runtime's defaults). Imported before any other module runs
 * (collector/allocator-setup.ts, agent/runtime-setup.ts).
 */
import { FFIType, ptr } from "bun:ffi";
import { openLibc } from "./libc.ts";

/** The command line that starts this same program again (from source or as a compiled binary). */
function commandLine(): string[] {
  // A compiled binary's argv[1] is its embedded entry point, not an argument.
  const compiled = import.meta.url.includes("$bunfs");
  return compiled ? [process.execPath, ...process.argv.slice(2)] : [process.execPath, ...process.execArgv, ...process.argv.slice(1)];
}

function reexec(env: Record<string, string | undefined>): void {
  let execve: ((path: unknown, argv: unknown, envp: unknown) => number) | undefined;
  try {
    execve = openLibc({ execve: { args: [FFIType.ptr, FFIType.ptr, FFIType.ptr], returns: FFIType.i32 } }).symbols.execve as typeof execve;
  } catch {}
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
  // Returns only when it failed: the process then simply goes on with the runtime's defaults.
  execve(ptr(args[0]!), ptr(argv), ptr(envp));
}

/** Starts the process again with those of `vars` that are not set yet, if any (see above). */
export function restartWithEnv(vars: Record<string, string>): void {
  if (process.platform !== "linux") return;
  const missing = Object.entries(vars).filter(([k]) => process.env[k] === undefined);
  if (missing.length === 0) return;
  reexec({ ...process.env, ...Object.fromEntries(missing) });
}
