import type { SQLQueryBindings } from "bun:sqlite";

/** Builds a WHERE clause from optional criteria, with positional parameters. */
export class Where {
  private readonly parts: string[] = [];
  readonly params: SQLQueryBindings[] = [];

  /** `style` "$": PostgreSQL's numbered placeholders ($1, $2...) instead of SQLite's `?`. */
  constructor(private readonly style: "?" | "$" = "?") {}

  private mark(): string {
    return this.style === "?" ? "?" : `$${this.params.length + 1}`;
  }

  /** `column IN (...)`; an empty list matches nothing, an absent one everything. */
  in(column: string, values: readonly (string | number)[] | undefined): this {
    if (values === undefined) return this;
    if (values.length === 0) {
      this.parts.push("1 = 0");
      return this;
    }
    const marks: string[] = [];
    for (const v of values) {
      marks.push(this.mark());
      this.params.push(v);
    }
    this.parts.push(`${column} IN (${marks.join(", ")})`);
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
    this.parts.push(`${column} ${op} ${this.mark()}`);
    this.params.push(value);
    return this;
  }

  toString(): string {
    return this.parts.length === 0 ? "" : ` WHERE ${this.parts.join(" AND ")}`;
  }
}
