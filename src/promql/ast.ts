/** The PromQL syntax tree the evaluator runs on (built from the Lezer tree by parse.ts). */

export type ValueType = "scalar" | "vector" | "matrix" | "string";

/** Prometheus' own names of the value types, as its error messages spell them. */
export const TYPE_NAMES: Record<ValueType, string> = {
  scalar: "scalar",
  vector: "instant vector",
  matrix: "range vector",
  string: "string",
};

export type MatchOp = "=" | "!=" | "=~" | "!~";

export interface Matcher {
  name: string;
  op: MatchOp;
  value: string;
  /** Anchored compiled regular expression for =~ and !~. */
  re?: RegExp;
}

/** `@ <time>` in ms, or the query's start/end. */
export type AtModifier = number | "start" | "end";

export interface VectorSelector {
  kind: "vector";
  /** The metric name when written before the braces (or as a quoted name). */
  name?: string;
  matchers: Matcher[];
  /** ms; positive looks back. */
  offset: number;
  at?: AtModifier;
}

export interface MatrixSelector {
  kind: "matrix";
  selector: VectorSelector;
  /** ms */
  range: number;
}

/**
 * `expr[range:step]`: the instant-vector expression evaluated every `step` (at multiples of it,
 * counted from the epoch) over each window (t − range, t], as a range vector.
 */
export interface SubqueryExpr {
  kind: "subquery";
  expr: Expr;
  /** ms */
  range: number;
  /** ms; absent when the query leaves it out (`[1h:]`): DEFAULT_SUBQUERY_STEP_MS. */
  step?: number;
  /** ms; positive looks back. */
  offset: number;
  at?: AtModifier;
}

/**
 * A subquery's step when the query leaves it out: Prometheus takes its global evaluation
 * interval, 1 minute unless configured otherwise.
 */
export const DEFAULT_SUBQUERY_STEP_MS = 60_000;

/** What a range function reads: a range selector or a subquery. */
export type RangeArg = MatrixSelector | SubqueryExpr;

export interface NumberLiteral {
  kind: "number";
  value: number;
}

export interface StringLiteral {
  kind: "string";
  value: string;
}

export interface Call {
  kind: "call";
  name: string;
  args: Expr[];
}

export type AggregateOp = "sum" | "avg" | "min" | "max" | "count" | "group" | "stddev" | "stdvar" | "topk" | "bottomk" | "quantile" | "count_values";

export interface Aggregate {
  kind: "aggregate";
  op: AggregateOp;
  /** k of topk/bottomk, φ of quantile, the label of count_values. */
  param?: Expr;
  expr: Expr;
  grouping: string[];
  without: boolean;
}

export type ArithmeticOp = "+" | "-" | "*" | "/" | "%" | "^" | "atan2";
export type ComparisonOp = "==" | "!=" | ">" | "<" | ">=" | "<=";
export type SetOp = "and" | "or" | "unless";
export type BinaryOp = ArithmeticOp | ComparisonOp | SetOp;

export type Cardinality = "one-to-one" | "many-to-one" | "one-to-many" | "many-to-many";

export interface VectorMatching {
  card: Cardinality;
  /** True for on(...), false for ignoring(...) or no clause. */
  on: boolean;
  labels: string[];
  /** Labels of group_left/group_right(...) copied from the "one" side. */
  include: string[];
}

export interface Binary {
  kind: "binary";
  op: BinaryOp;
  lhs: Expr;
  rhs: Expr;
  /** The `bool` modifier of comparisons. */
  returnBool: boolean;
  /** Present when both sides are instant vectors. */
  matching?: VectorMatching;
}

export interface Unary {
  kind: "unary";
  op: "-" | "+";
  expr: Expr;
}

export type Expr = VectorSelector | MatrixSelector | SubqueryExpr | NumberLiteral | StringLiteral | Call | Aggregate | Binary | Unary;

export const COMPARISON_OPS: ReadonlySet<string> = new Set(["==", "!=", ">", "<", ">=", "<="]);
export const SET_OPS: ReadonlySet<string> = new Set(["and", "or", "unless"]);
