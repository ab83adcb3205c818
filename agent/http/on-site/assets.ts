import { fileURLToPath } from "node:url";
import { type ConsoleBundle, type WebManifest, webBundleLoader } from "../../../src/http/console/web-bundle.ts";

/**
 * The on-site page's entry point: the console's own code (its metrics page, charts and
 * styles) with a shell of its own, in the console's web folder, where the page's type check
 * and its other entry live. Present when running from source, absent in a compiled binary.
 */
export const ON_SITE_ENTRY = fileURLToPath(new URL("../../../collector/http/console/web/on-site/main.tsx", import.meta.url));

/**
 * The on-site page's files, loaded at its first request and kept for the life of the process
 * (an agent nobody opens the page of never loads them): bundled from source, or read from
 * those `npm run build:console` wrote into dist/ (dist.ts) in a compiled binary.
 */
export const onSiteBundle: () => Promise<ConsoleBundle> = webBundleLoader({
  entry: ON_SITE_ENTRY,
  manifest: async () => {
    try {
      // biome-ignore lint/suspicious/noTsIgnore: the manifest exists only after `bun run build:console`.
      // @ts-ignore
      return (await import("./dist/manifest.ts")) as WebManifest;
    } catch {
      return undefined;
    }
  },
  missing: "this build of the agent holds no on-site console: run `bun run build:console` before `bun build --compile`",
});
