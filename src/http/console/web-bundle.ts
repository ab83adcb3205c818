import { gzipSync } from "bun";

/** One built file of a page, named with its content hash. */
export interface BuiltFile {
  name: string;
  body: Uint8Array<ArrayBuffer>;
}

/**
 * Bundles a page (TypeScript, Preact, uPlot and the styles it imports) from its entry point
 * with Bun's bundler: one script and one style sheet, minified, for the browser. Run at a
 * program's first console request when it runs from source, and by the build scripts that
 * write the files a compiled binary embeds.
 */
export async function bundleWeb(entry: string): Promise<BuiltFile[]> {
  const result = await Bun.build({
    entrypoints: [entry],
    target: "browser",
    minify: true,
    naming: "[name]-[hash].[ext]",
    define: { "process.env.NODE_ENV": '"production"' },
  });
  if (!result.success) throw new Error(`console build failed: ${result.logs.map((l) => String(l)).join("; ")}`);
  return Promise.all(result.outputs.map(async (o) => ({ name: o.path.replace(/^\.\//, ""), body: new Uint8Array(await o.arrayBuffer()) })));
}

/** A file of the page as served: its bytes, gzipped bytes and content type. */
export interface ConsoleAsset {
  name: string;
  type: string;
  body: Uint8Array<ArrayBuffer>;
  gzip: Uint8Array<ArrayBuffer>;
}

export interface ConsoleBundle {
  /** Names of the page's script and style sheet (hashed, so cacheable forever). */
  script: string;
  style: string;
  assets: Map<string, ConsoleAsset>;
  /** Where the files came from: bundled from source now, or embedded in the binary. */
  origin: "source" | "embedded";
  /** How long bundling or reading them took. */
  ms: number;
}

const TYPES: Record<string, string> = { js: "text/javascript; charset=utf-8", css: "text/css; charset=utf-8", svg: "image/svg+xml", woff2: "font/woff2" };

function bundleOf(files: BuiltFile[], origin: ConsoleBundle["origin"], started: number): ConsoleBundle {
  const assets = new Map<string, ConsoleAsset>();
  for (const f of files) {
    const ext = f.name.slice(f.name.lastIndexOf(".") + 1);
    assets.set(f.name, { name: f.name, type: TYPES[ext] ?? "application/octet-stream", body: f.body, gzip: gzipSync(f.body) });
  }
  const script = files.find((f) => f.name.endsWith(".js"))?.name;
  const style = files.find((f) => f.name.endsWith(".css"))?.name;
  if (!script || !style) throw new Error(`the console build lacks a script or a style sheet (${files.map((f) => f.name).join(", ")})`);
  return { script, style, assets, origin, ms: Math.round(performance.now() - started) };
}

/** What a web-dist.ts manifest exports: the built files, as `bun build --compile` embeds them. */
export interface WebManifest {
  CONSOLE_FILES: { name: string; path: string }[];
}

export interface WebBundleSource {
  /** The page's entry point; present when running from source, absent in a compiled binary. */
  entry: string;
  /**
   * Imports the program's generated manifest (web-dist.ts), undefined when it was not
   * generated. The import must sit in a try block of the program's own file: Bun's bundler then
   * leaves a path it cannot resolve to fail at run time instead of refusing to build.
   */
  manifest: () => Promise<WebManifest | undefined>;
  /** Why there is no page when neither is there: the command that builds it. */
  missing: string;
}

/**
 * A page's files, loaded once per process (the first call bundles or reads them). Run from
 * source, the page is bundled from its sources (so it is never stale); in a compiled binary,
 * where the sources are absent, the files embedded at build time are read. A failed load is
 * retried by the next call rather than remembered.
 */
export function webBundleLoader(source: WebBundleSource): () => Promise<ConsoleBundle> {
  const load = async (): Promise<ConsoleBundle> => {
    const started = performance.now();
    if (await Bun.file(source.entry).exists()) return bundleOf(await bundleWeb(source.entry), "source", started);
    const manifest = await source.manifest();
    if (!manifest) throw new Error(source.missing);
    const files = await Promise.all(manifest.CONSOLE_FILES.map(async (f) => ({ name: f.name, body: new Uint8Array(await Bun.file(f.path).arrayBuffer()) })));
    return bundleOf(files, "embedded", started);
  };
  let cached: Promise<ConsoleBundle> | undefined;
  return () => {
    cached ??= load();
    cached.catch(() => {
      cached = undefined;
    });
    return cached;
  };
}
