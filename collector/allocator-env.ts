/**
 * The allocator's settings for the collector, applied before anything else runs (collector/
 * main.ts imports allocator-setup.ts, which calls applyAllocatorEnv, first). Bun's allocator
 * (mimalloc) gives memory back to the system in two ways, and under ingest the same memory is
 * needed again a moment later: taking it back costs a page fault per 4 KiB (on a hypervisor,
 * microseconds each).
 * - Freed pages go back 100 ms after they were freed; with 1 s the collector took about 30–40 %
 *   fewer page faults under HTTP ingest at the same peak memory.
 * - Bun's build also discards the free blocks inside pages still in use (its "holes") each time
 *   a thread waits, at most every 100 ms: the event loop waits between requests, so the main
 *   thread's free blocks were discarded and faulted back several times a second. Off, remote
 *   write from 50,000 series took 6,000 faults per million samples instead of 17,000–27,000, at
 *   about 15 MB more resident at its peak (whole free pages still go back after 1 s).
 * Issue 28, docs/storage.md "Page faults". mimalloc reads its options when the process starts,
 * so the process replaces itself once (src/runtime/restart-with-env.ts). A variable set by the
 * operator is kept (MIMALLOC_PURGE_DELAY=100 and MIMALLOC_PURGE_HOLES=1 are the defaults).
 */
import { restartWithEnv } from "../src/runtime/restart-with-env.ts";

export const ALLOCATOR_ENV = {
  MIMALLOC_PURGE_DELAY: "1000",
  MIMALLOC_PURGE_HOLES: "0",
} as const;

/** Starts the process again with the allocator's settings, unless they are set already (see above). */
export function applyAllocatorEnv(): void {
  restartWithEnv(ALLOCATOR_ENV);
}
