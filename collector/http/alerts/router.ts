import type { Routes, ServiceContext } from "../../../src/http/service.ts";
import { QueryParams } from "./query.ts";
import { withDomainErrors } from "./respond.ts";

export type RouteHandler = (c: ServiceContext, q: QueryParams) => Response | Promise<Response>;
type Method = "get" | "post" | "put" | "delete";

/** Registers a route with the query parameters it accepts; anything else is a 400 naming it. */
export type Route = (method: Method | Method[], path: string, params: readonly string[], h: RouteHandler) => void;

export function alertsRouter(r: Routes): Route {
  return (method, path, params, h) => {
    const handler = withDomainErrors((c) => h(c, new QueryParams(c, params)));
    for (const m of Array.isArray(method) ? method : [method]) r[m](path, handler);
  };
}
