/**
 * The JavaScript engine's settings for the agent, applied before anything else runs (agent/
 * main.ts imports runtime-setup.ts, which calls applyRuntimeEnv, first; src/runtime/
 * restart-with-env.ts). The optimizing compiler's top tier (FTL) is off: under a scrape of
 * 10,000 series it added about 2 MB of resident code and memory and no measurable speed over
 * the tier below it (DFG), which stays on (docs/inputs.md, "Memory"). Setting BUN_JSC_useFTLJIT
 * yourself keeps your value.
 */
import { restartWithEnv } from "../src/runtime/restart-with-env.ts";

export const AGENT_RUNTIME_ENV = { BUN_JSC_useFTLJIT: "0" } as const;

/** Starts the process again with the settings, unless they are set already. */
export function applyRuntimeEnv(): void {
  restartWithEnv(AGENT_RUNTIME_ENV);
}
