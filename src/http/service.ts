import { type Context, Hono, type MiddlewareHandler } from "hono";
import type { Logger } from "../log/logger.ts";
import { postgresRejectedText } from "../postgres/failure.ts";
import { CorruptDataError } from "../sqlite/corrupt-data.ts";
import { storageFailure, storageFailureMessage } from "../sqlite/storage-failure.ts";
import { type AccessVariables, authorizeTenant, tenantAllowed } from "./access.ts";
import { type BaseUrlPolicy, requestBase } from "./base-url.ts";
import { ApiError } from "./errors.ts";
import { describeIssues, isZodError } from "./validate.ts";

/** Variables every service app sets on the context. */
export type ServiceEnv = {
  Variables: {
    /** The tenant of the request (first one for admin requests listing several). */
    tenant: string;
    /** Absolute URL of the service root the request came in on, e.g. http://h:8080/svc/metrics. */
    serviceBase: string;
  } & AccessVariables;
};

export type ServiceContext = Context<ServiceEnv>;

export const TENANT_HEADERS = ["Svc-Tenant", "Hawkular-Tenant"] as const;

/** The raw tenant header (either name), or undefined when missing or blank. */
export function tenantHeader(c: Context): string | undefined {
  for (const h of TENANT_HEADERS) {
    const v = c.req.header(h);
    if (v !== undefined && v.trim() !== "") return v.trim();
  }
  return undefined;
}

/** Path of the request relative to the service root it came in on. */
export function servicePath(c: ServiceContext): string {
  const base = new URL(c.get("serviceBase")).pathname;
  const p = c.req.path.slice(base.length);
  return p === "" ? "/" : p;
}

/** Absolute URL under the service root, for Location headers. */
export function absoluteUrl(c: ServiceContext, path: string): string {
  return c.get("serviceBase") + (path.startsWith("/") ? path : `/${path}`);
}

export interface TenantRule {
  /** Paths (relative to the service root) that need no tenant. */
  exempt?: (path: string, method: string) => boolean;
  /** The errorMsg when the header is missing, naming the header of the root the request came in on. */
  message?: (header: string) => string;
}

/** The tenant header clients of this root use: `Hawkular-Tenant` under /hawkular, `Svc-Tenant` under /svc. */
export function tenantHeaderName(c: ServiceContext): string {
  return new URL(c.get("serviceBase")).pathname.startsWith("/hawkular") ? "Hawkular-Tenant" : "Svc-Tenant";
}

/**
 * Requires the tenant header on every request except exempt paths, and that the request's
 * credential holds it (403 otherwise). On exempt paths a header the credential does not hold
 * is ignored, so nothing downstream can read that tenant.
 */
export function requireTenant(rule: TenantRule = {}): MiddlewareHandler<ServiceEnv> {
  const message = rule.message ?? ((header: string) => `Tenant is not specified. Use '${header}' header.`);
  return async (c, next) => {
    const t = tenantHeader(c);
    const exempt = rule.exempt?.(servicePath(c), c.req.method) ?? false;
    if (t === undefined && !exempt) return c.json({ errorMsg: message(tenantHeaderName(c)) }, 400);
    if (t !== undefined && !exempt) authorizeTenant(c, t);
    if (t !== undefined && (!exempt || tenantAllowed(c, t))) c.set("tenant", t);
    await next();
  };
}

function acceptsJson(accept: string): boolean {
  return accept.split(",").some((part) => {
    const t = part.split(";")[0]!.trim().toLowerCase();
    return t === "" || t === "*/*" || t === "application/*" || t === "application/json" || t.endsWith("+json");
  });
}

/** 406 when the Accept header excludes JSON. */
export const requireJsonAccept: MiddlewareHandler = async (c, next) => {
  const accept = c.req.header("Accept");
  if (accept && !acceptsJson(accept)) {
    return c.json({ errorMsg: `Cannot produce a response of type ${accept}; only application/json is served` }, 406);
  }
  await next();
};

/** 415 when a request with a body declares a media type other than JSON. */
export const requireJsonContent: MiddlewareHandler = async (c, next) => {
  const method = c.req.method;
  if (method === "POST" || method === "PUT" || method === "PATCH") {
    const ct = c.req.header("Content-Type");
    if (ct) {
      const type = ct.split(";")[0]!.trim().toLowerCase();
      if (type !== "application/json" && !type.endsWith("+json")) {
        return c.json({ errorMsg: `Unsupported media type ${type}; send application/json` }, 415);
      }
    }
  }
  await next();
};

export interface Readiness {
  ready(): boolean;
}

/** 503 until the storage behind the service is ready. */
export function requireReady(r: Readiness): MiddlewareHandler {
  return async (c, next) => {
    if (!r.ready()) return c.json({ errorMsg: "Service is starting; storage is not ready yet" }, 503);
    await next();
  };
}

/**
 * The ApiError a store's failure stands for, undefined for other errors. A write refused by full
 * storage is a 507 (an I/O failure or an unreachable database a 503): the storage health has
 * logged it already. Every HTTP interface (Hawkular, Prometheus, Influx) answers these the same.
 */
export function storeApiError(err: unknown): ApiError | undefined {
  const storage = storageFailure(err);
  if (storage) return new ApiError(storage === "full" ? 507 : 503, storageFailureMessage(storage));
  // Damaged stored data: refused (the store has logged which metric), never answered with wrong points.
  if (err instanceof CorruptDataError) return new ApiError(503, err.message);
  const rejectedText = postgresRejectedText(err);
  if (rejectedText) return new ApiError(400, rejectedText);
  return undefined;
}

/** Maps thrown errors to `{"errorMsg"}` responses; unexpected errors are logged. */
export function errorResponse(err: unknown, c: Context, log?: Logger): Response {
  const api = err instanceof ApiError ? err : storeApiError(err);
  if (api) return c.json(api.details === undefined ? { errorMsg: api.message } : { errorMsg: api.message, details: api.details }, api.status, api.headers);
  if (isZodError(err)) return c.json({ errorMsg: describeIssues(err, "input") }, 400);
  if (err instanceof SyntaxError) return c.json({ errorMsg: `Malformed JSON: ${err.message}` }, 400);
  const e = err as Error;
  log?.error("request failed", { method: c.req.method, path: c.req.path, err: e?.stack ?? String(e) });
  return c.json({ errorMsg: `Failed to perform operation due to an error: ${e?.message ?? String(e)}` }, 500);
}

type Handler = (c: ServiceContext) => Response | Promise<Response>;
type Method = "get" | "post" | "put" | "delete" | "patch";

/**
 * Route registration that remembers every path, so that a path reached with a method it does
 * not support answers 405 instead of 404. Call `finish()` after the last route.
 */
export class Routes {
  private readonly methods = new Map<string, Set<string>>();
  /**
   * @param aliases path prefixes served under a second name too, e.g. `{"/metrics": "/m"}`:
   *   every route under the first prefix is also registered under the second.
   */
  constructor(
    readonly app: Hono<ServiceEnv>,
    private readonly aliases: Record<string, string> = {},
  ) {}

  private add(method: Method, path: string, h: Handler): this {
    for (const p of [path, ...this.aliasesOf(path)]) {
      let set = this.methods.get(p);
      if (!set) this.methods.set(p, (set = new Set()));
      set.add(method.toUpperCase());
      this.app[method](p, h);
    }
    return this;
  }

  private aliasesOf(path: string): string[] {
    const out: string[] = [];
    for (const [prefix, alias] of Object.entries(this.aliases)) {
      if (path === prefix || path.startsWith(`${prefix}/`)) out.push(alias + path.slice(prefix.length));
    }
    return out;
  }
  get(path: string, h: Handler) {
    return this.add("get", path, h);
  }
  post(path: string, h: Handler) {
    return this.add("post", path, h);
  }
  put(path: string, h: Handler) {
    return this.add("put", path, h);
  }
  delete(path: string, h: Handler) {
    return this.add("delete", path, h);
  }
  patch(path: string, h: Handler) {
    return this.add("patch", path, h);
  }

  /** Registers the 405 fallbacks; must be called once all routes are added. */
  finish(): Hono<ServiceEnv> {
    for (const [path, set] of this.methods) {
      const allow = [...set, ...(set.has("GET") ? ["HEAD"] : []), "OPTIONS"].join(", ");
      this.app.all(path, (c) =>
        c.json({ errorMsg: `Method ${c.req.method} is not supported on this resource` }, 405, { Allow: allow }),
      );
    }
    return this.app;
  }
}

/**
 * A new service sub-app with the JSON conventions (406, 415) installed, except on the paths
 * `raw` names (relative to the service root), which carry bytes (agent release binaries).
 */
export function createServiceApp(raw?: (path: string) => boolean): Hono<ServiceEnv> {
  const app = new Hono<ServiceEnv>({ strict: false });
  const unlessRaw = (m: MiddlewareHandler): MiddlewareHandler<ServiceEnv> => (c, next) => (raw?.(servicePath(c)) ? next() : m(c, next));
  app.use("*", unlessRaw(requireJsonAccept));
  app.use("*", unlessRaw(requireJsonContent));
  return app;
}

/**
 * Mounts a service app under each prefix (e.g. /svc/metrics and /hawkular/metrics) and
 * records the absolute service root for Location headers.
 */
export function mountService(root: Hono<ServiceEnv>, prefixes: string[], app: Hono<ServiceEnv>, base: BaseUrlPolicy = {}): void {
  for (const prefix of prefixes) {
    root.use(`${prefix}/*`, setServiceBase(prefix, base));
    root.use(prefix, setServiceBase(prefix, base));
    root.route(prefix, app);
  }
}

function setServiceBase(prefix: string, base: BaseUrlPolicy): MiddlewareHandler<ServiceEnv> {
  return async (c, next) => {
    c.set("serviceBase", `${requestBase(c, base)}${prefix}`);
    await next();
  };
}
