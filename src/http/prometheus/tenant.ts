import type { Context } from "hono";
import { authorizeTenant } from "../access.ts";
import { tenantHeader } from "../service.ts";
import { badData } from "./respond.ts";

/**
 * The one place this app decides a request's tenant: the `{tenant}` of the
 * /prometheus/{tenant}/… (or /influx/{tenant}/…) prefix, else the tenant header; and checks
 * that the request's credential holds it (403 otherwise, docs/security.md).
 */
export function resolveTenant(c: Context): string {
  const fromPath = c.req.param("tenant");
  const tenant = fromPath !== undefined && fromPath !== "" ? fromPath : tenantHeader(c);
  if (tenant === undefined) throw badData("Tenant is not specified: use /prometheus/{tenant}/api/v1/… or the 'Svc-Tenant' header");
  authorizeTenant(c, tenant);
  return tenant;
}
