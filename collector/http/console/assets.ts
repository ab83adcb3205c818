import { fileURLToPath } from "node:url";
import { type ConsoleBundle, type WebManifest, webBundleLoader } from "../../../src/http/console/web-bundle.ts";

/** The page's entry point; present when running from source, absent in a compiled binary. */
export const WEB_ENTRY = fileURLToPath(new URL("./web/main.tsx", import.meta.url));

/**
 * The console's files, loaded once per process: bundled from web/ when running from source,
 * read from those `npm run build:console` wrote into dist/ (dist.ts) in a compiled binary.
 */
export const consoleBundle: () => Promise<ConsoleBundle> = webBundleLoader({
  entry: WEB_ENTRY,
  manifest: async () => {
    try {
      // biome-ignore lint/suspicious/noTsIgnore: the manifest exists only after `bun run build:console`.
      // @ts-ignore
      return (await import("./dist/manifest.ts")) as WebManifest;
    } catch {
      return undefined;
    }
  },
  missing: "this build of the collector holds no console: run `bun run build:console` before `bun build --compile`",
});
