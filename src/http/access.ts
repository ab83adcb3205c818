import { ApiError } from "./errors.ts";

/**
 * Who a request is, as far as tenants go. Set on every request by the server's authentication
 * (collector/http/authenticate.ts): `OPEN_ACCESS` when no credentials file is configured
 * (loopback only, see docs/security.md), or the authenticated credential. A request that
 * carries no access at all (a bug, or a path left open) is refused every tenant: fail closed.
 */
export interface Access {
  /** The credential's name (user name or token id), for messages and logs. */
  name: string;
  /** Every tenant, and the cross-tenant admin paths. */
  admin: boolean;
  tenants: ReadonlySet<string>;
  /** Aborted when the credential is removed or changed (SIGHUP): long-lived streams end with it. */
  revoked?: AbortSignal;
}

/** No credentials file: whoever reaches the (loopback) server may use every tenant. */
export const OPEN_ACCESS: Access = Object.freeze({ name: "anonymous", admin: true, tenants: new Set<string>() });

export type AccessVariables = { access?: Access };
/** Any request context whose variables include the access (every service app's). */
type AccessContext = { get(key: "access"): Access | undefined };

/** Whether the request may read and write `tenant`. */
export function tenantAllowed(c: AccessContext, tenant: string): boolean {
  const a = c.get("access");
  return a !== undefined && (a.admin || a.tenants.has(tenant));
}

/**
 * THE tenant check of every interface: call it with the tenant the app resolved (header, path
 * or query) before touching that tenant's data. 403 with an errorMsg when the request's
 * credential does not hold it. `requireTenant` (src/http/service.ts) applies it to the tenant
 * header; apps that take the tenant elsewhere (a path segment, a websocket query) call it.
 */
export function authorizeTenant(c: AccessContext, tenant: string): void {
  if (tenantAllowed(c, tenant)) return;
  const who = c.get("access")?.name;
  throw new ApiError(403, who === undefined ? `Access to tenant '${tenant}' needs credentials` : `Credential '${who}' does not hold tenant '${tenant}'`);
}

/** The cross-tenant admin paths (and listing every tenant) need an admin credential. */
export function authorizeAdmin(c: AccessContext, what: string): void {
  const a = c.get("access");
  if (a?.admin) return;
  throw new ApiError(403, `${what} needs an admin credential${a ? `; '${a.name}' is not one` : ""}`);
}

/** The tenants of `all` the request may see (for listings such as GET /tenants). */
export function visibleTenants<T>(c: AccessContext, all: readonly T[], idOf: (t: T) => string): T[] {
  return all.filter((t) => tenantAllowed(c, idOf(t)));
}
