/** Paging and sorting of list results, as upstream's `page`, `per_page`, `sort`, `order`. */

export interface SortKey {
  /** A field name or dotted path: `ctime`, `trigger.id`, `context.region`. */
  field: string;
  ascending: boolean;
}

export interface Pager {
  /** 0-based. */
  page: number;
  /** Absent: everything on one page. */
  perPage?: number;
  sort: SortKey[];
}

export interface Page<T> {
  items: T[];
  total: number;
  pager: Pager;
}

export const UNPAGED: Pager = { page: 0, sort: [] };

function valueAt(item: unknown, path: string): unknown {
  let v: unknown = item;
  for (const part of path.split(".")) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<string, unknown>)[part];
  }
  return v;
}

/** Absent values sort first; numbers numerically; anything else as text. */
function compareValues(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === undefined || a === null) return -1;
  if (b === undefined || b === null) return 1;
  if (typeof a === "number" && typeof b === "number") return a - b;
  const sa = String(a);
  const sb = String(b);
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

/** Fields whose values sort by rank rather than by name (severity LOW..CRITICAL, status OPEN..RESOLVED). */
export type Ranks = Record<string, readonly string[]>;

/**
 * Sorts by the requested keys (the first is primary), then by `defaults`, and cuts the page.
 * A page past the end is empty; the total always counts every item.
 */
export function paginate<T>(items: T[], pager: Pager, defaults: readonly SortKey[], ranks: Ranks = {}): Page<T> {
  const keys = [...pager.sort, ...defaults];
  const read = (item: T, field: string) => {
    const v = valueAt(item, field);
    const order = ranks[field];
    return order && typeof v === "string" ? order.indexOf(v) : v;
  };
  const sorted = [...items].sort((x, y) => {
    for (const k of keys) {
      const c = compareValues(read(x, k.field), read(y, k.field));
      if (c !== 0) return k.ascending ? c : -c;
    }
    return 0;
  });
  if (pager.perPage === undefined) return { items: sorted, total: sorted.length, pager };
  const start = pager.page * pager.perPage;
  return { items: sorted.slice(start, start + pager.perPage), total: sorted.length, pager };
}
