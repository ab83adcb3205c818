import type { SQLQueryBindings } from "bun:sqlite";

/** Builds a WHERE clause from optional criteria, with positional parameters. */
export class Where {
  private readonly parts: string[] = [];
  readonly params: SQLQueryBindings[] = [];

  /** `column IN (...)`; an empty list matches nothing, an absent one everything. */
  in(column: string, values: readonly (string | number)[] | undefined): this {
    if (values === undefined) return this;
    if (values.length === 0) {
      this.parts.push("1 = 0");
      return this;
    }
    this.parts.push(`${column} IN (${values.map(() => "?").join(", ")})`);
    this.params.push(...values);
    return this;
  }

  /** `column >= min` / `column <= max` when given. */
  range(column: string, min: number | undefined, max: number | undefined): this {
    if (min !== undefined) this.cmp(column, ">=", min);
    if (max !== undefined) this.cmp(column, "<=", max);
    return this;
  }

  cmp(column: string, op: "<" | "<=" | ">" | ">=" | "=" | "<>", value: string | number | undefined): this {
    if (value === undefined) return this;
    this.parts.push(`${column} ${op} ?`);
    this.params.push(value);
    return this;
  }

  toString(): string {
    return this.parts.length === 0 ? "" : ` WHERE ${this.parts.join(" AND ")}`;
  }
}
