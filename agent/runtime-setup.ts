/** Imported first by agent/main.ts: the engine's settings before any other module runs (runtime-env.ts). */
import { applyRuntimeEnv } from "./runtime-env.ts";

applyRuntimeEnv();
