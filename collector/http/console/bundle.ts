import { fileURLToPath } from "node:url";

/** The page's entry point; present when running from source, absent in a compiled binary. */
export const WEB_ENTRY = fileURLToPath(new URL("./web/main.tsx", import.meta.url));

/** One built file of the page, named with its content hash. */
export interface BuiltFile {
  name: string;
  body: Uint8Array<ArrayBuffer>;
}

/**
 * Bundles the page (TypeScript, Preact, uPlot and the styles) with Bun's bundler: one
 * script and one style sheet, minified, for the browser. Used at the collector's first console
 * request when running from source, and by build.ts to make the files a binary embeds.
 */
export async function bundleConsole(): Promise<BuiltFile[]> {
  const result = await Bun.build({
    entrypoints: [WEB_ENTRY],
    target: "browser",
    minify: true,
    naming: "[name]-[hash].[ext]",
    define: { "process.env.NODE_ENV": '"production"' },
  });
  if (!result.success) throw new Error(`console build failed: ${result.logs.map((l) => String(l)).join("; ")}`);
  return Promise.all(result.outputs.map(async (o) => ({ name: o.path.replace(/^\.\//, ""), body: new Uint8Array(await o.arrayBuffer()) })));
}
