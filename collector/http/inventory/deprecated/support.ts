import { badRequest } from "../../../../src/http/errors.ts";
import { jsonResponse } from "../../../../src/http/json.ts";
import type { ServiceContext } from "../../../../src/http/service.ts";
import { CanonicalPath } from "../../../../src/inventory/canonical-path.ts";
import { encodeId } from "../../../../src/inventory/path-codec.ts";
import { resolvePath } from "../../../../src/inventory/path-resolve.ts";
import type { SegmentCode } from "../../../../src/inventory/segment-types.ts";
import { checked } from "../../../inventory/failures.ts";
import type { Json } from "../../../inventory/render.ts";
import { pagedResponse, pagingOf } from "../paged-response.ts";
import { rawPathAfter } from "../request-path.ts";

/** Helpers shared by the routes of the earlier interface. */

export const tenantOf = (c: ServiceContext): string => c.get("tenant");

export function tenantRoot(c: ServiceContext): CanonicalPath {
  return CanonicalPath.tenant(tenantOf(c));
}

/** A path parameter (already decoded by the router) as one id. */
export function param(c: ServiceContext, name: string): string {
  const v = c.req.param(name);
  if (!v) throw badRequest(`Missing ${name}`);
  return v;
}

/**
 * The raw (still percent-encoded) rest of the request path after its first `n` segments below
 * the service root, for path parameters that are themselves paths: the router would decode
 * `%2F` inside an id into a separator.
 */
export function rawTail(c: ServiceContext, n: number): string {
  return rawPathAfter(c, "").split("/").slice(n).join("/");
}

/** `/t;<tenant>/<code>;<id>`, e.g. a top-level resource type. */
export function topLevel(c: ServiceContext, code: SegmentCode, id: string): CanonicalPath {
  return checked(() => tenantRoot(c).extend(code, id));
}

export function under(parent: CanonicalPath, code: SegmentCode, id: string): CanonicalPath {
  return checked(() => parent.extend(code, id));
}

/**
 * A path written by a client of the earlier interface: with `canonical=true` it is an absolute
 * path (with or without tenant), otherwise a path relative to `origin`, where a bare id is
 * read as `finalType`.
 */
export function clientPath(c: ServiceContext, text: string, origin: CanonicalPath, finalType: SegmentCode, canonical: boolean): CanonicalPath {
  const t = canonical && !text.startsWith("/") ? `/${text}` : text;
  return checked(() => resolvePath(t, { tenant: tenantOf(c), origin, finalType }));
}

export const flag = (c: ServiceContext, name: string): boolean => c.req.query(name) === "true";

/** A listed result, paged as every list of the interface. */
export function listed(c: ServiceContext, items: Json[]): Response {
  return pagedResponse(c, items, pagingOf(c));
}

/** 201 with the created element and a Location of the request URL extended by its id. */
export function createdAt(c: ServiceContext, body: unknown, id: string): Response {
  const seen = new URL(c.req.url);
  const location = `${new URL(c.get("serviceBase")).origin}${seen.pathname.replace(/\/$/, "")}/${encodeId(id)}`;
  return jsonResponse(c, 201, body, { headers: { Location: location } });
}

export const noContent = (c: ServiceContext): Response => c.body(null, 204);

/** A JSON array of strings (paths to associate); anything else is a 400. */
export function stringList(body: unknown, what: string): string[] {
  if (!Array.isArray(body) || !body.every((x) => typeof x === "string" && x !== "")) {
    throw badRequest(`Expected a JSON array of ${what}`);
  }
  return body as string[];
}
