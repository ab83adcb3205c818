import type { Context } from "hono";
import type { Logger } from "../../log/logger.ts";
import type { ConsoleBundle } from "./web-bundle.ts";

/**
 * The page's files for a request, or a 503 saying why there are none (a binary compiled
 * without its console build). Logs once when they are first ready: where they came from, how
 * many bytes, how long it took.
 */
export function bundleForRequests(load: () => Promise<ConsoleBundle>, log: Logger): (c: Context) => Promise<ConsoleBundle | Response> {
  let announced = false;
  return async (c) => {
    try {
      const b = await load();
      if (!announced) {
        announced = true;
        const bytes = [...b.assets.values()].reduce((n, a) => n + a.body.length, 0);
        log.info("console assets ready", { origin: b.origin, files: b.assets.size, bytes, ms: b.ms });
      }
      return b;
    } catch (e) {
      log.error("the console is not available", { err: (e as Error).message });
      return c.json({ errorMsg: `The console is not available: ${(e as Error).message}` }, 503);
    }
  };
}

/** One of the page's files: cacheable forever (its name is its content's hash), gzipped when the browser takes it. */
export function assetResponse(c: Context, b: ConsoleBundle, name: string): Response {
  const a = b.assets.get(name);
  if (!a) return c.json({ errorMsg: `No console asset ${name}` }, 404);
  const headers: Record<string, string> = { "Content-Type": a.type, "Cache-Control": "public, max-age=31536000, immutable", "X-Content-Type-Options": "nosniff", Vary: "Accept-Encoding" };
  if (/\bgzip\b/.test(c.req.header("Accept-Encoding") ?? "")) return c.body(a.gzip, 200, { ...headers, "Content-Encoding": "gzip" });
  return c.body(a.body, 200, headers);
}
