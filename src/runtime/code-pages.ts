/**
 * Drops the resident pages of the executable's machine code that the process is not using.
 * Bun's executable is about 90 MB; starting a program touches some 40 MB of its code
 * (the transpiler, the module loader, start-up paths) that the running program never calls
 * again, yet those pages stay counted in its resident size (RssFile) until the kernel needs
 * the memory. `madvise(MADV_DONTNEED)` on the code's mappings takes them out of the process's
 * page tables: the pages stay in the kernel's page cache, and any the program does run again
 * come back on their next call as minor faults, 64 KiB at a time (the kernel's fault-around).
 * Done now and then (see startCodePageTrim), the process holds only the code it runs.
 *
 * Safe because the code's pages are never written: only mappings of the executable that are
 * read-and-execute, private, with no page of their own (Anonymous and Private_Dirty 0 kB in
 * smaps) are advised. A page written by a debugger's breakpoint or a uprobe is its own copy,
 * which the advice would discard, so such a mapping is left alone. Linux only; elsewhere, or
 * when the C library cannot be opened, nothing is done. docs/storage.md, issue 28.
 */
import { FFIType } from "bun:ffi";
import { readFileSync, readlinkSync } from "node:fs";
import type { Logger } from "../log/logger.ts";
import { openLibc } from "./libc.ts";

const MADV_DONTNEED = 4;

/** A mapping of the executable's code, from /proc/self/smaps. */
export interface CodeMapping {
  start: bigint;
  end: bigint;
  /** Resident bytes. */
  rss: number;
  /** Whether it holds pages of its own (written), which the advice would discard. */
  written: boolean;
}

/** The read-and-execute mappings of `exe` in an smaps text. */
export function codeMappings(smaps: string, exe: string): CodeMapping[] {
  const found: CodeMapping[] = [];
  let cur: CodeMapping | undefined;
  for (const line of smaps.split("\n")) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) (\S{4}) \S+ \S+ \S+ *(.*)$/.exec(line);
    if (head) {
      cur = head[3] === "r-xp" && head[4] === exe ? { start: BigInt(`0x${head[1]}`), end: BigInt(`0x${head[2]}`), rss: 0, written: false } : undefined;
      if (cur) found.push(cur);
      continue;
    }
    if (!cur) continue;
    const field = /^(Rss|Anonymous|Private_Dirty):\s+(\d+) kB/.exec(line);
    if (!field) continue;
    const kib = Number(field[2]);
    if (field[1] === "Rss") cur.rss = kib * 1024;
    else if (kib > 0) cur.written = true;
  }
  return found;
}

type Madvise = (addr: bigint, len: bigint, advice: number) => number;
let madvise: Madvise | null | undefined;

function loadMadvise(): Madvise | null {
  if (madvise !== undefined) return madvise;
  try {
    madvise = openLibc({ madvise: { args: [FFIType.u64, FFIType.u64, FFIType.i32], returns: FFIType.i32 } }).symbols.madvise as Madvise;
  } catch {
    madvise = null;
  }
  return madvise;
}

/** What one trim did. */
export interface CodeTrim {
  /** Resident bytes of the executable's code before. */
  residentBefore: number;
  /** Bytes of mappings advised. */
  advised: number;
}

/** Drops the executable code's resident pages (see above); undefined when it cannot here. */
export function dropCodePages(): CodeTrim | undefined {
  if (process.platform !== "linux") return undefined;
  const advise = loadMadvise();
  if (!advise) return undefined;
  let exe: string;
  let smaps: string;
  try {
    exe = readlinkSync("/proc/self/exe");
    smaps = readFileSync("/proc/self/smaps", "utf8");
  } catch {
    return undefined;
  }
  const trim: CodeTrim = { residentBefore: 0, advised: 0 };
  for (const m of codeMappings(smaps, exe)) {
    trim.residentBefore += m.rss;
    if (m.written || m.rss === 0) continue;
    if (advise(m.start, m.end - m.start, MADV_DONTNEED) === 0) trim.advised += Number(m.end - m.start);
  }
  return trim;
}

/**
 * Trims the code's pages `firstAfterMs` from now (start-up's code is done with by then), then
 * every `everyMs`: trimmed once, the pages came back within a minute (an idle agent's code
 * 27 MB half a minute after a trim, 42 MB as before a minute later), as code run now and then
 * (timers, collections, a rare request) is faulted in 64 KiB at a time. Not more often: a trim
 * reads smaps, which walks the page tables (about 10 ms of system time with 400 MB resident),
 * and the code run all the time comes back each time (an idle agent trimmed every 10 s: 0.38–
 * 0.43 % of a core, every 30 s 0.37–0.38, never 0.33–0.37). The first trim is logged at debug
 * level. Returns the stop. The timers do not keep the process alive.
 */
export function startCodePageTrim(log: Logger, o: { firstAfterMs?: number; everyMs?: number } = {}): () => void {
  let every: ReturnType<typeof setInterval> | undefined;
  const first = setTimeout(() => {
    const t = dropCodePages();
    if (!t) return;
    log.debug("executable's unused code pages dropped", { residentMB: Math.round(t.residentBefore / 1048576), advisedMB: Math.round(t.advised / 1048576) });
    every = setInterval(dropCodePages, o.everyMs ?? 30_000);
    every.unref();
  }, o.firstAfterMs ?? 5_000);
  first.unref();
  return () => {
    clearTimeout(first);
    clearInterval(every);
  };
}
