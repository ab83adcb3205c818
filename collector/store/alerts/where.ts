import type { SQLQueryBindings } from "bun:sqlite";
import type { ActionRows, AlertRows, EventRows } from "./types.ts";

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

type Style = "?" | "$";

/** The criteria of an alerts query, for either engine. */
export function alertsWhere(r: AlertRows, style: Style = "?"): Where {
  return new Where(style)
    .in("tenant", r.tenants)
    .range("ctime", r.startTime, r.endTime)
    .in("id", r.ids)
    .in("trigger_id", r.triggerIds)
    .in("status", r.statuses)
    .in("severity", r.severities)
    .range("ack_time", r.startAckTime, r.endAckTime)
    .range("resolved_time", r.startResolvedTime, r.endResolvedTime)
    .cmp("status_time", ">", r.statusTimeAfter);
}

/** The criteria of an events query, for either engine. */
export function eventsWhere(r: EventRows, style: Style = "?"): Where {
  return new Where(style)
    .in("tenant", r.tenants)
    .range("ctime", r.startTime, r.endTime)
    .in("id", r.ids)
    .in("trigger_id", r.triggerIds)
    .in("category", r.categories)
    .cmp("ctime", ">", r.ctimeAfter);
}

/** The criteria of an action history query, for either engine. */
export function actionsWhere(r: ActionRows, style: Style = "?"): Where {
  return new Where(style)
    .in("tenant", r.tenants)
    .range("ctime", r.startTime, r.endTime)
    .in("plugin", r.plugins)
    .in("action_id", r.actionIds)
    .in("event_id", r.eventIds)
    .in("result", r.results);
}
