import { ApiError } from "../../../src/http/errors.ts";
import type { ServiceContext } from "../../../src/http/service.ts";
import { CanonicalPath } from "../../../src/inventory/canonical-path.ts";
import { PathError } from "../../../src/inventory/path-codec.ts";
import { resolvePath } from "../../../src/inventory/path-resolve.ts";

/**
 * The request path after `prefix` (relative to the service root), exactly as sent: still
 * percent-encoded. Hono's `c.req.path` decodes some escapes (`%20`, `%25`), which would change
 * what an id means, so paths are read from the raw URL.
 */
export function rawPathAfter(c: ServiceContext, prefix: string): string {
  const pathname = new URL(c.req.url).pathname;
  const base = new URL(c.get("serviceBase")).pathname;
  const rest = pathname.startsWith(base) ? pathname.slice(base.length) : pathname;
  if (!rest.startsWith(prefix)) return "";
  return rest.slice(prefix.length).replace(/^\/+/, "");
}

/** A canonical path from a URL, with or without the leading tenant segment; invalid → 400. */
export function pathFromUrl(text: string, tenant: string): CanonicalPath {
  try {
    return text === "" ? CanonicalPath.tenant(tenant) : resolvePath(`/${text}`, { tenant });
  } catch (e) {
    if (e instanceof PathError) throw new ApiError(400, `Invalid path '${text}': ${e.message}`);
    throw e;
  }
}
