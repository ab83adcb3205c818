/**
 * The allocator's setting for the collector, applied before anything else runs (collector/
 * main.ts imports allocator-setup.ts, which calls applyAllocatorEnv, first). Bun's allocator
 * (mimalloc) hands freed memory back to the system 100 ms after it was freed; under ingest the
 * same memory is needed again a moment later, and taking it back costs a page fault per 4 KiB
 * (on a hypervisor, microseconds each). With 1 s, the collector took about 30–40 % fewer page
 * faults under HTTP ingest at the same peak memory (issue 28, docs/storage.md "Page faults").
 * mimalloc reads its options when the process starts, so the process replaces itself once
 * (src/runtime/restart-with-env.ts). Setting MIMALLOC_PURGE_DELAY yourself (100 is mimalloc's
 * default) keeps the process as it is.
 */
import { restartWithEnv } from "../src/runtime/restart-with-env.ts";

export const PURGE_DELAY_MS = "1000";

/** Starts the process again with the purge delay set, unless it is set already (see above). */
export function applyAllocatorEnv(): void {
  restartWithEnv({ MIMALLOC_PURGE_DELAY: PURGE_DELAY_MS });
}
