// Namespace import: the named `z` export comes out undefined under vitest on Bun.
import * as z from "zod";

/** Paging of listed results: `page` (0-based), `per_page`, `sort` (repeatable) with `order`. */
export interface Paging {
  page: number;
  /** Undefined: everything on one page. */
  perPage?: number;
  /** Keys of the returned objects to sort by, each with its direction. */
  sort: { key: string; order: "asc" | "desc" }[];
}

const int = (name: string, min: number) =>
  z
    .string()
    .regex(/^\d+$/, `${name} must be a non-negative integer`)
    .transform(Number)
    .refine((n) => n >= min && Number.isSafeInteger(n), `${name} must be at least ${min}`);

export const pagingQuerySchema = z.object({
  page: int("page", 0).optional(),
  per_page: int("per_page", 1).optional(),
  sort: z.array(z.string().min(1)).optional(),
  order: z.array(z.enum(["asc", "desc", "ASC", "DESC"])).optional(),
});

function compareValues(a: unknown, b: unknown): number {
  // Missing values go last whatever the order, so they never hide the ones that have the key.
  if (a === undefined || a === null) return b === undefined || b === null ? 0 : 1;
  if (b === undefined || b === null) return -1;
  if (typeof a === "number" && typeof b === "number") return a - b;
  const sa = typeof a === "string" ? a : JSON.stringify(a);
  const sb = typeof b === "string" ? b : JSON.stringify(b);
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

/** Sorts (stable) and cuts one page; returns the page and the total before cutting. */
export function applyPaging<T extends Record<string, unknown>>(items: T[], paging: Paging): { page: T[]; total: number } {
  let sorted = items;
  if (paging.sort.length) {
    sorted = [...items].sort((x, y) => {
      for (const s of paging.sort) {
        const c = compareValues(x[s.key], y[s.key]);
        if (c !== 0) {
          const missing = x[s.key] === undefined || y[s.key] === undefined || x[s.key] === null || y[s.key] === null;
          return s.order === "desc" && !missing ? -c : c;
        }
      }
      return 0;
    });
  }
  if (paging.perPage === undefined) return { page: sorted, total: items.length };
  const from = paging.page * paging.perPage;
  return { page: sorted.slice(from, from + paging.perPage), total: items.length };
}
