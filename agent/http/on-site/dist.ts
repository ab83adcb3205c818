import { fileURLToPath } from "node:url";
import { writeWebDist } from "../../../src/http/console/web-dist.ts";
import { ON_SITE_ENTRY } from "./assets.ts";

/** Where the on-site page's built files and their manifest go (git-ignored). */
export const ON_SITE_DIST = fileURLToPath(new URL("./dist", import.meta.url));

/**
 * Writes the on-site page's built files and their manifest into ON_SITE_DIST, so that `bun
 * build --compile` of the agent embeds them. Used by `npm run build:console` and `npm run release`.
 */
export function writeOnSiteDist(): Promise<{ files: string[]; bytes: number; ms: number }> {
  return writeWebDist(ON_SITE_ENTRY, ON_SITE_DIST, "agent/http/on-site/dist.ts");
}
