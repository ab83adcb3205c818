import { dlopen, type FFIFunction, type Library } from "bun:ffi";

/** The C libraries tried, glibc's first, then musl's (Alpine) under the names their loaders know. */
const NAMES = ["libc.so.6", `libc.musl-${process.arch === "arm64" ? "aarch64" : "x86_64"}.so.1`, "libc.so"];

/**
 * The C library with `symbols` bound; throws "no C library `purpose`: …" when none of the
 * names can be opened.
 */
export function openLibc<const S extends Record<string, FFIFunction>>(symbols: S, purpose = "could be opened"): Library<S> {
  let last: unknown;
  for (const name of NAMES) {
    try {
      return dlopen(name, symbols);
    } catch (e) {
      last = e;
    }
  }
  throw new Error(`no C library ${purpose}: ${(last as Error)?.message}`);
}
