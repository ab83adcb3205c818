/**
 * What an expression reads, and whether it can be evaluated series by series: an expression
 * whose every result series comes from exactly one stored series (a selector, a range function
 * of it, per-value functions and arithmetic with scalars), optionally folded by a sum/avg/min/
 * max/count/group/stddev/stdvar aggregation. Such a query reads, evaluates and drops one series
 * after another instead of loading all samples first.
 */
import type { Aggregate, Expr, SubqueryExpr, VectorSelector } from "./ast.ts";
import { isPerSeries } from "./functions.ts";
import { isFoldable } from "./group-aggregator.ts";
import { RANGE_FUNCTIONS } from "./range-functions.ts";
import { typeOf } from "./types.ts";

export interface SelectorUse {
  sel: VectorSelector;
  /** The range of a range selector, ms; 0 for an instant selector. */
  range: number;
  /** The subqueries the selector is inside, outermost first (they move the times it reads at). */
  within?: readonly SubqueryExpr[];
}

/** The selectors of an expression, each with the range it reads. */
export function selectors(e: Expr, out: SelectorUse[] = [], within?: readonly SubqueryExpr[]): SelectorUse[] {
  switch (e.kind) {
    case "vector":
      out.push(within ? { sel: e, range: 0, within } : { sel: e, range: 0 });
      break;
    case "matrix":
      out.push(within ? { sel: e.selector, range: e.range, within } : { sel: e.selector, range: e.range });
      break;
    case "subquery":
      selectors(e.expr, out, [...(within ?? []), e]);
      break;
    case "call":
      for (const a of e.args) selectors(a, out, within);
      break;
    case "aggregate":
      if (e.param) selectors(e.param, out, within);
      selectors(e.expr, out, within);
      break;
    case "binary":
      selectors(e.lhs, out, within);
      selectors(e.rhs, out, within);
      break;
    case "unary":
      selectors(e.expr, out, within);
      break;
    default:
  }
  return out;
}

const selectorFree = (e: Expr) => selectors(e).length === 0;

/** True when each result series depends on one input series only (and scalars). */
function perSeries(e: Expr): boolean {
  switch (e.kind) {
    case "vector":
      return true;
    case "call":
      if (e.name in RANGE_FUNCTIONS) return e.args.every((a) => a.kind === "matrix" || selectorFree(a));
      return isPerSeries(e) && perSeries(e.args[0]!) && e.args.slice(1).every(selectorFree);
    case "unary":
      return perSeries(e.expr);
    case "binary": {
      const scalarSide = (x: Expr) => typeOf(x) === "scalar" && selectorFree(x);
      return (perSeries(e.lhs) && scalarSide(e.rhs)) || (scalarSide(e.lhs) && perSeries(e.rhs));
    }
    default:
      return false;
  }
}

export interface StreamPlan {
  /** The aggregation that folds the per-series results, when there is one. */
  agg?: Aggregate;
  /** The per-series expression; `use` is its only selector. */
  expr: Expr;
  use: SelectorUse;
}

/** How to evaluate `e` series by series, or undefined when it needs all series at once. */
export function streamPlan(e: Expr): StreamPlan | undefined {
  const agg = e.kind === "aggregate" ? e : undefined;
  if (agg && !isFoldable(agg.op)) return undefined;
  const inner = agg ? agg.expr : e;
  if (typeOf(inner) !== "vector") return undefined;
  const uses = selectors(inner);
  if (uses.length !== 1 || !perSeries(inner)) return undefined;
  return { agg, expr: inner, use: uses[0]! };
}
