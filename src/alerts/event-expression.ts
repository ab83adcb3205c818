import { tryCompileUserPattern, UserPattern } from "../regex/user-pattern.ts";
import type { Event } from "./model.ts";

/**
 * The expression language of event conditions: comma-separated clauses `<field> <operator> <constant>`,
 * all of which must hold. Fields: tenantId, id, ctime, text, category, tags.<key>. Operators:
 * ==, !=, starts, ends, contains, match (or matches), <, <=, >, >=. A constant in single quotes is a
 * string, anything else a number. `\,` is a literal comma (inside string constants). An empty
 * expression matches every event; an invalid one matches none.
 */

type Field = { kind: "tenantId" | "id" | "ctime" | "text" | "category" } | { kind: "tag"; key: string };
type Operator = "==" | "!=" | "starts" | "ends" | "contains" | "match" | "<" | "<=" | ">" | ">=";
type Constant = { kind: "string"; value: string } | { kind: "number"; value: number };

export interface Clause {
  field: Field;
  operator: Operator;
  constant: Constant;
}

export type ParsedExpression = { ok: true; clauses: Clause[] } | { ok: false; error: string };

const OPERATORS: Record<string, Operator> = {
  "==": "==",
  "!=": "!=",
  starts: "starts",
  ends: "ends",
  contains: "contains",
  match: "match",
  matches: "match",
  "<": "<",
  "<=": "<=",
  ">": ">",
  ">=": ">=",
};

/** Splits on commas that are not escaped, then unescapes `\,`. */
function splitClauses(expression: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (let i = 0; i < expression.length; i++) {
    if (expression[i] === "," && expression[i - 1] !== "\\") {
      out.push(expression.slice(start, i));
      start = i + 1;
    }
  }
  out.push(expression.slice(start));
  return out.map((s) => s.trim().replaceAll("\\,", ","));
}

function parseField(s: string): Field | undefined {
  switch (s) {
    case "tenantId":
    case "id":
    case "ctime":
    case "text":
    case "category":
      return { kind: s };
  }
  if (s.startsWith("tags.") && s.length > 5) return { kind: "tag", key: s.slice(5) };
  return undefined;
}

function parseConstant(s: string): Constant | string {
  const q1 = s.startsWith("'");
  const q2 = s.length > 1 && s.endsWith("'");
  if (q1 && q2) return { kind: "string", value: s.slice(1, -1) };
  if (q1 || s.endsWith("'")) return `unbalanced quote in constant ${s}`;
  const n = Number(s);
  if (s.length === 0 || !Number.isFinite(n)) return `constant ${s} is neither a quoted string nor a number`;
  return { kind: "number", value: n };
}

function parseClause(text: string): Clause | string {
  const m = /^(\S+)\s+(\S+)\s+(.+)$/s.exec(text);
  if (!m) return `clause "${text}" is not <field> <operator> <constant>`;
  const field = parseField(m[1]!);
  if (!field) return `unknown field ${m[1]}`;
  const operator = OPERATORS[m[2]!];
  if (!operator) return `unknown operator ${m[2]}`;
  const constant = parseConstant(m[3]!.trim());
  if (typeof constant === "string") return constant;
  if (operator === "match" && constant.kind === "string") {
    const re = tryCompileUserPattern(constant.value);
    if (re instanceof Error) return `${re.message}: ${constant.value}`;
  }
  return { field, operator, constant };
}

export function parseEventExpression(expression: string | undefined): ParsedExpression {
  if (expression === undefined || expression.trim().length === 0) return { ok: true, clauses: [] };
  const clauses: Clause[] = [];
  for (const part of splitClauses(expression)) {
    const c = parseClause(part);
    if (typeof c === "string") return { ok: false, error: c };
    clauses.push(c);
  }
  return { ok: true, clauses };
}

function fieldValue(f: Field, e: Event): string | number | undefined {
  switch (f.kind) {
    case "tenantId":
      return e.tenantId;
    case "id":
      return e.id;
    case "ctime":
      return e.ctime;
    case "text":
      return e.text;
    case "category":
      return e.category;
    case "tag":
      return e.tags?.[f.key];
  }
}

function asNumber(v: string | number): number {
  return typeof v === "number" ? v : v.trim().length === 0 ? Number.NaN : Number(v);
}

/** Types must agree: a string field compares with a string constant, ctime with a number. */
function evalClause(c: Clause, e: Event, regex: UserPattern | undefined): boolean {
  const v = fieldValue(c.field, e);
  if (v === undefined || v === null) return false;
  const k = c.constant;
  switch (c.operator) {
    case "==":
    case "!=": {
      if (typeof v !== (k.kind === "string" ? "string" : "number")) return false;
      return (v === k.value) === (c.operator === "==");
    }
    case "starts":
      return typeof v === "string" && k.kind === "string" && v.startsWith(k.value);
    case "ends":
      return typeof v === "string" && k.kind === "string" && v.endsWith(k.value);
    case "contains":
      return typeof v === "string" && k.kind === "string" && v.includes(k.value);
    case "match":
      return typeof v === "string" && regex !== undefined && regex.test(v);
    default: {
      if (k.kind !== "number") return false;
      const n = asNumber(v);
      if (Number.isNaN(n)) return false;
      if (c.operator === "<") return n < k.value;
      if (c.operator === "<=") return n <= k.value;
      if (c.operator === ">") return n > k.value;
      return n >= k.value;
    }
  }
}

/** Compiles an expression once into a predicate over events. */
export function compileEventExpression(expression: string | undefined): (e: Event) => boolean {
  const parsed = parseEventExpression(expression);
  if (!parsed.ok) return () => false;
  const clauses = parsed.clauses;
  const regexes = clauses.map((c) =>
    c.operator === "match" && c.constant.kind === "string" ? UserPattern.compile(c.constant.value) : undefined,
  );
  return (e) => {
    for (let i = 0; i < clauses.length; i++) if (!evalClause(clauses[i]!, e, regexes[i])) return false;
    return true;
  };
}

export function eventExpressionMatches(expression: string | undefined, e: Event): boolean {
  return compileEventExpression(expression)(e);
}
