import { GroupDefinitionError } from "../../../src/alerts/groups.ts";
import { TagQueryError } from "../../../src/tags/query/index.ts";
import { ApiError } from "../../../src/http/errors.ts";
import { jsonResponse } from "../../../src/http/json.ts";
import { absoluteUrl, type ServiceContext, servicePath } from "../../../src/http/service.ts";
import { TimeConstraintError } from "../../../src/alerts/actions/time-constraint.ts";
import { InvalidRequestError, NotFoundError } from "../../alerts/errors.ts";
import type { Page } from "../../alerts/paging.ts";

export type Handler = (c: ServiceContext) => Response | Promise<Response>;

/** Domain errors become the statuses of the spec: 404 for what does not exist, 400 for the rest. */
export function withDomainErrors(h: Handler): Handler {
  return async (c) => {
    try {
      return await h(c);
    } catch (e) {
      if (e instanceof NotFoundError) throw new ApiError(404, e.message);
      if (e instanceof InvalidRequestError || e instanceof GroupDefinitionError || e instanceof TimeConstraintError) {
        throw new ApiError(400, e.message);
      }
      if (e instanceof TagQueryError) throw new ApiError(400, `Bad arguments: ${e.message}`);
      throw e;
    }
  };
}

/** 200 with the JSON value (an empty list stays `[]`, as upstream answers). */
export function ok(c: ServiceContext, value: unknown): Response {
  return jsonResponse(c, 200, value);
}

/** 200 with no body, as upstream answers writes that return nothing. */
export function done(c: ServiceContext): Response {
  return c.body(null, 200);
}

function withPage(url: URL, page: number): string {
  const u = new URL(url);
  u.searchParams.set("page", String(page));
  return u.toString();
}

/** A page of results with upstream's paging headers: `Link` (current, next, prev, last) and `X-Total-Count`. */
export function pageResponse<T>(c: ServiceContext, page: Page<T>, render: (item: T) => unknown = (x) => x): Response {
  const url = new URL(absoluteUrl(c, servicePath(c)) + new URL(c.req.url).search);
  const { page: n, perPage } = page.pager;
  const links = [`<${url}>; rel="current"`];
  if (perPage !== undefined) {
    const last = Math.max(0, Math.ceil(page.total / perPage) - 1);
    if (n < last) links.push(`<${withPage(url, n + 1)}>; rel="next"`);
    if (n > 0) links.push(`<${withPage(url, Math.min(n - 1, last))}>; rel="prev"`);
    links.push(`<${withPage(url, last)}>; rel="last"`);
  }
  return jsonResponse(c, 200, page.items.map(render), { headers: { Link: links.join(", "), "X-Total-Count": String(page.total) } });
}
