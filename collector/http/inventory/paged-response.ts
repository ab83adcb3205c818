import { jsonResponse } from "../../../src/http/json.ts";
import { parseWith } from "../../../src/http/validate.ts";
import type { ServiceContext } from "../../../src/http/service.ts";
import { applyPaging, type Paging, pagingQuerySchema } from "../../../src/inventory/paging.ts";

/** Paging parameters of the request (`page`, `per_page`, repeated `sort` and `order`); bad values → 400. */
export function pagingOf(c: ServiceContext): Paging {
  const q = parseWith(
    pagingQuerySchema,
    {
      page: c.req.query("page"),
      per_page: c.req.query("per_page"),
      sort: c.req.queries("sort"),
      order: c.req.queries("order"),
    },
    "paging parameters",
  );
  return {
    page: q.page ?? 0,
    perPage: q.per_page,
    sort: (q.sort ?? []).map((key, i) => ({ key, order: (q.order?.[i] ?? "asc").toLowerCase() as "asc" | "desc" })),
  };
}

function withPage(url: URL, page: number): string {
  const u = new URL(url);
  u.searchParams.set("page", String(page));
  return u.toString();
}

/**
 * A JSON array of one page, with `X-Total-Count` and a `Link` header (rel current, next, prev,
 * last) as upstream sends them. An empty result is `[]`: traversal clients parse the body as an
 * array whatever the count.
 */
export function pagedResponse(c: ServiceContext, items: Record<string, unknown>[], paging: Paging): Response {
  const { page, total } = applyPaging(items, paging);
  // The URL as the client addressed it (proxies included), not as the server saw it.
  const seen = new URL(c.req.url);
  const url = new URL(seen.pathname + seen.search, new URL(c.get("serviceBase")).origin);
  const links = [`<${url.toString()}>; rel="current"`];
  if (paging.perPage !== undefined) {
    if (total > (paging.page + 1) * paging.perPage) links.push(`<${withPage(url, paging.page + 1)}>; rel="next"`);
  }
  if (paging.page > 0) links.push(`<${withPage(url, paging.page - 1)}>; rel="prev"`);
  if (paging.perPage !== undefined) {
    const last = Math.max(0, Math.ceil(total / paging.perPage) - 1);
    links.push(`<${withPage(url, last)}>; rel="last"`);
  }
  return jsonResponse(c, 200, page, { raw: true, headers: { "X-Total-Count": String(total), Link: links.join(", ") } });
}
