import { ApiError } from "../../../src/http/errors.ts";
import type { ServiceContext } from "../../../src/http/service.ts";
import type { Pager, SortKey } from "../../alerts/paging.ts";

/** Present on any request, it turns off the check for unknown parameters (upstream's escape hatch). */
const IGNORE_UNKNOWN = "ignoreUnknownQueryParams";

export const PAGING_PARAMS = ["page", "per_page", "sort", "order"] as const;

const bad = (msg: string) => new ApiError(400, msg);

/**
 * The query string of one request, read against the parameters its endpoint accepts: any other
 * parameter is a 400 that names it. Values are parsed with readable 400s.
 */
export class QueryParams {
  private readonly values: Record<string, string[]>;

  constructor(c: ServiceContext, accepted: readonly string[]) {
    this.values = c.req.queries() ?? {};
    if (IGNORE_UNKNOWN in this.values) return;
    const allowed = new Set(accepted);
    const unknown = Object.keys(this.values).filter((k) => !allowed.has(k));
    if (unknown.length > 0) throw bad(`Unknown Query Parameter(s): [${unknown.join(", ")}]`);
  }

  /** The parameter's value; blank counts as absent. */
  str(name: string): string | undefined {
    const v = this.values[name]?.[0];
    return v === undefined || v.trim() === "" ? undefined : v;
  }

  /** A value the endpoint cannot do without. */
  required(name: string, message?: string): string {
    const v = this.str(name);
    if (v === undefined) throw bad(message ?? `${name} is required`);
    return v;
  }

  /** Comma-separated values (repeated parameters are joined), blanks dropped. */
  list(name: string): string[] | undefined {
    const all = this.values[name];
    if (!all) return undefined;
    const items = all
      .flatMap((v) => v.split(","))
      .map((s) => s.trim())
      .filter((s) => s.length > 0);
    return items.length > 0 ? items : undefined;
  }

  /** A list whose values must come from `allowed` (upper-cased first). */
  enumList<T extends string>(name: string, allowed: readonly T[]): T[] | undefined {
    const items = this.list(name)?.map((s) => s.toUpperCase());
    if (!items) return undefined;
    const wrong = items.filter((s) => !(allowed as readonly string[]).includes(s));
    if (wrong.length > 0) throw bad(`${name}: invalid value(s) [${wrong.join(", ")}]; expected any of [${allowed.join(", ")}]`);
    return items as T[];
  }

  /** An integer (times in ms, counts). */
  int(name: string, min = Number.MIN_SAFE_INTEGER): number | undefined {
    const v = this.str(name);
    if (v === undefined) return undefined;
    const n = /^[+-]?\d+$/.test(v.trim()) ? Number(v) : Number.NaN;
    if (!Number.isSafeInteger(n)) throw bad(`${name} must be an integer, got '${v}'`);
    if (n < min) throw bad(`${name} must be at least ${min}`);
    return n;
  }

  /** true/false; the bare parameter (`?thin`) reads as true. */
  bool(name: string): boolean | undefined {
    const all = this.values[name];
    if (!all) return undefined;
    const v = (all[0] ?? "").trim().toLowerCase();
    if (v === "" || v === "true") return true;
    if (v === "false") return false;
    throw bad(`${name} must be true or false, got '${all[0]}'`);
  }

  /** `page` (0-based), `per_page`, and repeated or comma-separated `sort` with matching `order` (asc/desc). */
  pager(): Pager {
    const page = this.int("page", 0) ?? 0;
    const perPage = this.int("per_page", 1);
    const fields = this.list("sort") ?? [];
    const orders = this.list("order") ?? [];
    const sort: SortKey[] = fields.map((field, i) => {
      const o = (orders[i] ?? "asc").toLowerCase();
      if (o !== "asc" && o !== "desc") throw bad(`order must be asc or desc, got '${orders[i]}'`);
      return { field, ascending: o === "asc" };
    });
    return { page, perPage, sort };
  }
}
