import type { Tags } from "../metrics/model.ts";

/**
 * One string for equal strings: labels and tag values repeat across series (a job, a host, a
 * tenant), and each decode or database row makes its own copy. With `max`, the table is emptied
 * when full (strings met before stay shared by whoever holds them).
 */
export class Interner {
  private readonly table = new Map<string, string>();

  constructor(private readonly max = Number.POSITIVE_INFINITY) {}

  of(v: string): string {
    const known = this.table.get(v);
    if (known !== undefined) return known;
    if (this.table.size >= this.max) this.table.clear();
    this.table.set(v, v);
    return v;
  }

  /** `tags` with each value replaced by its shared string (in place). */
  values(tags: Tags): Tags {
    for (const k in tags) tags[k] = this.of(tags[k]!);
    return tags;
  }
}
