import { fileURLToPath } from "node:url";
import { writeWebDist } from "../../../src/http/console/web-dist.ts";
import { WEB_ENTRY } from "./assets.ts";

/** Where the built files and their manifest go (git-ignored). */
export const CONSOLE_DIST = fileURLToPath(new URL("./dist", import.meta.url));

/**
 * Writes the console's built files and their manifest into CONSOLE_DIST, so that `bun build
 * --compile` of the collector embeds them (assets.ts imports the manifest when it exists).
 * Used by `npm run build:console` and `npm run release`.
 */
export function writeConsoleDist(): Promise<{ files: string[]; bytes: number; ms: number }> {
  return writeWebDist(WEB_ENTRY, CONSOLE_DIST, "collector/http/console/dist.ts");
}
