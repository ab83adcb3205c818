/** Imported first by collector/main.ts: the allocator's setting before any other module runs (allocator-env.ts). */
import { applyAllocatorEnv } from "./allocator-env.ts";

applyAllocatorEnv();
