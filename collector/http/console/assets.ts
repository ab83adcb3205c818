import { gzipSync } from "bun";
import { type BuiltFile, bundleConsole, WEB_ENTRY } from "./bundle.ts";

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

/** The files `bun run build:console` generated, as a compiled binary embeds them. */
async function embeddedFiles(): Promise<BuiltFile[] | undefined> {
  let manifest: { CONSOLE_FILES: { name: string; path: string }[] };
  try {
    // biome-ignore lint/suspicious/noTsIgnore: the manifest exists only after `bun run build:console`.
    // @ts-ignore
    manifest = await import("./dist/manifest.ts");
  } catch {
    return undefined;
  }
  return Promise.all(manifest.CONSOLE_FILES.map(async (f) => ({ name: f.name, body: new Uint8Array(await Bun.file(f.path).arrayBuffer()) })));
}

/**
 * Run from source, the page is bundled from its sources (so it is never stale); in a compiled
 * binary, where the sources are absent, the files embedded at build time are served.
 */
async function loadBundle(): Promise<ConsoleBundle> {
  const started = performance.now();
  if (await Bun.file(WEB_ENTRY).exists()) return bundleOf(await bundleConsole(), "source", started);
  const files = await embeddedFiles();
  if (!files) throw new Error("this build of the collector holds no console: run `bun run build:console` before `bun build --compile`");
  return bundleOf(files, "embedded", started);
}

let cached: Promise<ConsoleBundle> | undefined;

/** The console's files, loaded once per process (the first call bundles or reads them). */
export function consoleBundle(): Promise<ConsoleBundle> {
  cached ??= loadBundle();
  // A failed load is retried by the next request rather than remembered.
  cached.catch(() => {
    cached = undefined;
  });
  return cached;
}
