/**
 * PromQL text → syntax tree. The grammar is Prometheus' own Lezer grammar
 * (@prometheus-io/lezer-promql, the one its web UI uses); this file walks its concrete tree
 * into ast.ts nodes and applies the checks Prometheus' parser makes (types, arguments,
 * modifiers), with errors worded and positioned as Prometheus words them.
 */
import type { SyntaxNode } from "@lezer/common";
import { parser } from "@prometheus-io/lezer-promql";
import {
  type AggregateOp,
  type AtModifier,
  type BinaryOp,
  COMPARISON_OPS,
  type Expr,
  type Matcher,
  type MatchOp,
  SET_OPS,
  type SubqueryExpr,
  TYPE_NAMES,
  type ValueType,
  type VectorMatching,
  type VectorSelector,
} from "./ast.ts";
import { LiteralError, compileRegex, parseDuration, parseNumber, unquote } from "./literals.ts";
import { SIGNATURES } from "./signatures.ts";
import { typeOf } from "./types.ts";

export class ParseError extends Error {
  constructor(
    readonly position: string,
    readonly detail: string,
  ) {
    super(`${position}: parse error: ${detail}`);
  }
}

/**
 * Valid PromQL that Outpost does not evaluate (a function or aggregation it lacks, fill
 * modifiers, duration expressions): not the query's fault, answered 501 (docs/prometheus.md).
 */
export class UnsupportedFeatureError extends ParseError {
  constructor(position: string, detail: string) {
    super(position, detail);
    this.message = `${position}: ${detail}`;
  }
}

const AGGREGATE_OPS = new Set<string>(["sum", "avg", "min", "max", "count", "group", "stddev", "stdvar", "topk", "bottomk", "quantile", "count_values"]);
const PARAM_TYPES: Partial<Record<AggregateOp, ValueType>> = { topk: "scalar", bottomk: "scalar", quantile: "scalar", count_values: "string" };

/** Parses a PromQL expression; throws ParseError. */
export function parsePromQL(input: string): Expr {
  return new Builder(input).build();
}

class Builder {
  constructor(private readonly src: string) {}

  build(): Expr {
    const tree = parser.parse(this.src);
    tree.iterate({
      enter: (n) => {
        if (n.type.isError) {
          throw this.syntaxError(n.from, n.to);
        }
      },
    });
    const kids = this.children(tree.topNode);
    if (kids.length === 0) throw this.error(0, "no expression found in input");
    return this.expr(kids[0]!);
  }

  /** Lezer marks where parsing failed; say what is there, as Prometheus' parser does. */
  private syntaxError(from: number, to: number): ParseError {
    const text = this.src.slice(from, Math.max(to, from + 1)).trim();
    if (from >= this.src.trimEnd().length || text === "") return this.error(from, "unexpected end of input");
    const fn = /([a-zA-Z_][a-zA-Z0-9_]*)\s*$/.exec(this.src.slice(0, from));
    if (fn && text.startsWith("(")) return this.error(fn.index, `unknown function with name ${JSON.stringify(fn[1])}`);
    return this.error(from, `unexpected character or token ${JSON.stringify(text.slice(0, 20))}`);
  }

  private error(pos: number, detail: string): ParseError {
    return new ParseError(this.position(pos), detail);
  }

  private unsupported(pos: number, detail: string): UnsupportedFeatureError {
    return new UnsupportedFeatureError(this.position(pos), detail);
  }

  /** `line:column`, as Prometheus writes positions. */
  private position(pos: number): string {
    const before = this.src.slice(0, pos);
    const line = before.split("\n").length;
    const col = pos - (before.lastIndexOf("\n") + 1) + 1;
    return `${line}:${col}`;
  }

  private text(n: SyntaxNode): string {
    return this.src.slice(n.from, n.to);
  }

  private children(n: SyntaxNode): SyntaxNode[] {
    const out: SyntaxNode[] = [];
    for (let c = n.firstChild; c; c = c.nextSibling) if (c.name !== "LineComment") out.push(c);
    return out;
  }

  private child(n: SyntaxNode, name: string): SyntaxNode | undefined {
    return this.children(n).find((c) => c.name === name);
  }

  private literal<T>(n: SyntaxNode, f: () => T): T {
    try {
      return f();
    } catch (e) {
      if (e instanceof LiteralError) throw this.error(n.from, e.message);
      throw e;
    }
  }

  private expr(n: SyntaxNode): Expr {
    switch (n.name) {
      case "ParenExpr":
        return this.expr(this.children(n)[0]!);
      case "NumberDurationLiteral":
        return { kind: "number", value: this.literal(n, () => parseNumber(this.text(n))) };
      case "StringLiteral":
        return { kind: "string", value: this.literal(n, () => unquote(this.text(n))) };
      case "VectorSelector":
        return this.vectorSelector(n);
      case "MatrixSelector":
        return this.matrixSelector(n);
      case "OffsetExpr":
        return this.offset(n);
      case "StepInvariantExpr":
        return this.at(n);
      case "FunctionCall":
        return this.call(n);
      case "AggregateExpr":
        return this.aggregate(n);
      case "BinaryExpr":
        return this.binary(n);
      case "UnaryExpr":
        return this.unary(n);
      case "SubqueryExpr":
        return this.subquery(n);
      default:
        throw this.unsupported(n.from, `${n.name} is not supported by Outpost`);
    }
  }

  private labelName(n: SyntaxNode): string {
    if (n.name === "QuotedLabelName") return this.literal(n, () => unquote(this.text(this.children(n)[0]!)));
    return this.text(n);
  }

  private vectorSelector(n: SyntaxNode): VectorSelector {
    const id = this.child(n, "Identifier");
    let name = id ? this.text(id) : undefined;
    const matchers: Matcher[] = [];
    const lm = this.child(n, "LabelMatchers");
    for (const m of lm ? this.children(lm) : []) {
      if (m.name === "QuotedLabelName") {
        const quoted = this.labelName(m);
        if (name !== undefined) throw this.error(m.from, `metric name must not be set twice: ${JSON.stringify(name)} or ${JSON.stringify(quoted)}`);
        name = quoted;
        continue;
      }
      const [ln, op, value] = this.children(m);
      const label = ln!.name === "QuotedLabelName" ? this.labelName(ln!) : this.text(ln!);
      const matcher: Matcher = { name: label, op: this.text(op!) as MatchOp, value: this.literal(value!, () => unquote(this.text(value!))) };
      if (matcher.op === "=~" || matcher.op === "!~") matcher.re = this.literal(value!, () => compileRegex(matcher.value));
      matchers.push(matcher);
    }
    if (name !== undefined) {
      for (const m of matchers) {
        if (m.name === "__name__") throw this.error(n.from, `metric name must not be set twice: ${JSON.stringify(name)} or ${JSON.stringify(m.value)}`);
      }
      matchers.unshift({ name: "__name__", op: "=", value: name });
    }
    // Prometheus refuses selectors that would match every series.
    if (!matchers.some((m) => !(m.re ? m.re.test("") : m.op === "=" ? m.value === "" : m.value !== ""))) {
      throw this.error(n.from, "vector selector must contain at least one non-empty matcher");
    }
    return { kind: "vector", name, matchers, offset: 0 };
  }

  private matrixSelector(n: SyntaxNode): Expr {
    const [inner, dur] = this.children(n);
    const sel = this.expr(inner!);
    if (sel.kind !== "vector") throw this.error(n.from, "ranges only allowed for vector selectors");
    if (sel.offset !== 0 || sel.at !== undefined) throw this.error(n.from, "no offset or @ modifiers allowed before range");
    const range = this.duration(dur!);
    if (range <= 0) throw this.error(dur!.from, `range must be positive: ${this.text(dur!)}`);
    return { kind: "matrix", selector: sel, range };
  }

  /** A duration node (a literal, possibly signed): ms. */
  private duration(n: SyntaxNode): number {
    const text = this.text(n).replace(/\s+/g, "");
    if (!/^[+-]?[0-9.]/.test(text)) throw this.unsupported(n.from, `duration expressions are not supported by Outpost: ${text}`);
    const sign = text.startsWith("-") ? -1 : 1;
    return sign * this.literal(n, () => parseDuration(text.replace(/^[+-]/, "")));
  }

  /** `expr[range:step]` (the step may be left out). */
  private subquery(n: SyntaxNode): Expr {
    const [inner, rangeNode, stepNode] = this.children(n);
    // Lezer reads `-x[5m:1m]` as (-x)[5m:1m]; Prometheus' grammar as -(x[5m:1m]), which it refuses.
    if (inner!.name === "UnaryExpr") throw this.error(n.from, `unary expression only allowed on expressions of type scalar or instant vector, got "range vector"`);
    const expr = this.expr(inner!);
    const t = typeOf(expr);
    // Prometheus names the type here by its short name (matrix, scalar, string).
    if (t !== "vector") throw this.error(n.from, `subquery is only allowed on instant vector, got ${t} instead`);
    const range = this.duration(rangeNode!);
    // Prometheus' words for a zero range or step.
    if (range <= 0) throw this.error(rangeNode!.from, "duration must be greater than 0");
    const sub: SubqueryExpr = { kind: "subquery", expr, range, offset: 0 };
    if (stepNode) {
      const step = this.duration(stepNode);
      if (step <= 0) throw this.error(stepNode.from, "duration must be greater than 0");
      sub.step = step;
    }
    return sub;
  }

  /** What an offset or @ modifies: a selector or a subquery. */
  private modified(target: Expr, pos: number, what: string): VectorSelector | SubqueryExpr {
    const sel = target.kind === "matrix" ? target.selector : target.kind === "vector" || target.kind === "subquery" ? target : undefined;
    if (!sel) throw this.error(pos, `${what} modifier must be preceded by an instant vector selector or range vector selector or a subquery`);
    return sel;
  }

  private offset(n: SyntaxNode): Expr {
    const kids = this.children(n);
    const target = this.expr(kids[0]!);
    const sel = this.modified(target, kids[1]!.from, "offset");
    if (sel.offset !== 0) throw this.error(kids[1]!.from, "offset may not be set multiple times");
    sel.offset = this.duration(kids[2]!);
    return target;
  }

  private at(n: SyntaxNode): Expr {
    const kids = this.children(n);
    const target = this.expr(kids[0]!);
    const sel = this.modified(target, kids[1]!.from, "@");
    if (sel.at !== undefined) throw this.error(kids[1]!.from, "@ <timestamp> may not be set multiple times");
    const v = kids[2]!;
    let at: AtModifier;
    if (v.name === "AtModifierPreprocessors") at = this.children(v)[0]!.name === "AtStart" ? "start" : "end";
    else {
      const seconds = this.literal(v, () => parseNumber(this.text(v)));
      if (!Number.isFinite(seconds)) throw this.error(v.from, `timestamp out of bounds for @ modifier: ${seconds}`);
      at = Math.round(seconds * 1000);
    }
    sel.at = at;
    return target;
  }

  private call(n: SyntaxNode): Expr {
    const id = this.child(n, "FunctionIdentifier")!;
    const name = this.text(id);
    const sig = SIGNATURES[name];
    if (!sig) throw this.unsupported(id.from, `function "${name}" is not supported by Outpost`);
    const body = this.child(n, "FunctionCallBody");
    const argNodes = body ? this.children(body) : [];
    const args = argNodes.map((a) => this.expr(a));
    const min = sig.optional === -1 ? sig.args.length - 1 : sig.args.length - (sig.optional ?? 0);
    if (sig.optional === undefined && args.length !== sig.args.length) {
      throw this.error(n.from, `expected ${sig.args.length} argument(s) in call to "${name}", got ${args.length}`);
    }
    if (args.length < min) throw this.error(n.from, `expected at least ${min} argument(s) in call to "${name}", got ${args.length}`);
    if (sig.optional !== undefined && sig.optional >= 0 && args.length > sig.args.length) {
      throw this.error(n.from, `expected at most ${sig.args.length} argument(s) in call to "${name}", got ${args.length}`);
    }
    args.forEach((a, i) => {
      const want = sig.args[Math.min(i, sig.args.length - 1)]!;
      this.expectType(a, want, argNodes[i]!.from, `call to function "${name}"`);
    });
    return { kind: "call", name, args };
  }

  private expectType(e: Expr, want: ValueType, pos: number, context: string): void {
    const got = typeOf(e);
    if (got !== want) throw this.error(pos, `expected type ${TYPE_NAMES[want]} in ${context}, got ${TYPE_NAMES[got]}`);
  }

  private aggregate(n: SyntaxNode): Expr {
    const op = this.text(this.child(n, "AggregateOp")!).toLowerCase();
    if (!AGGREGATE_OPS.has(op)) throw this.unsupported(n.from, `aggregation "${op}" is not supported by Outpost`);
    const aggOp = op as AggregateOp;
    let grouping: string[] = [];
    let without = false;
    const mod = this.child(n, "AggregateModifier");
    if (mod) {
      const [kw, labels] = this.children(mod);
      without = kw!.name === "Without";
      grouping = labels ? this.children(labels).map((l) => this.labelName(l)) : [];
    }
    const body = this.child(n, "FunctionCallBody");
    const argNodes = body ? this.children(body) : [];
    const args = argNodes.map((a) => this.expr(a));
    const paramType = PARAM_TYPES[aggOp];
    const want = paramType ? 2 : 1;
    if (args.length !== want) throw this.error(n.from, `wrong number of arguments for aggregate expression provided, expected ${want}, got ${args.length}`);
    const expr = args[want - 1]!;
    this.expectType(expr, "vector", argNodes[want - 1]!.from, "aggregation expression");
    if (paramType) this.expectType(args[0]!, paramType, argNodes[0]!.from, "aggregation parameter");
    return { kind: "aggregate", op: aggOp, param: paramType ? args[0] : undefined, expr, grouping, without };
  }

  private binary(n: SyntaxNode): Expr {
    const kids = this.children(n);
    const signed = this.signedPowerBase(n);
    if (signed) {
      const power: Expr = { kind: "binary", op: "^", lhs: { kind: "number", value: signed.value }, rhs: this.expr(kids[2]!), returnBool: false };
      if (typeOf(power.rhs) !== "scalar" && typeOf(power.rhs) !== "vector") throw this.error(kids[2]!.from, "binary expression must contain only scalar and instant vector types");
      return signed.sign === "-" ? { kind: "unary", op: "-", expr: power } : power;
    }
    const lhs = this.expr(kids[0]!);
    const opNode = kids[1]!;
    const op = this.text(opNode).toLowerCase() as BinaryOp;
    let i = 2;
    let returnBool = false;
    let matching: VectorMatching | undefined;
    let matchingPos = 0;
    if (kids[i]?.name === "BoolModifier") {
      returnBool = true;
      i++;
    }
    if (kids[i]?.name === "MatchingModifierClause") {
      matchingPos = kids[i]!.from;
      matching = this.matching(kids[i]!);
      i++;
    }
    if (kids[i]?.name === "FillModifier") throw this.unsupported(kids[i]!.from, "fill modifiers are not supported by Outpost");
    const rhs = this.expr(kids[i]!);
    const lt = typeOf(lhs);
    const rt = typeOf(rhs);
    for (const [t, node] of [
      [lt, kids[0]!],
      [rt, kids[i]!],
    ] as const) {
      if (t !== "scalar" && t !== "vector") throw this.error(node.from, "binary expression must contain only scalar and instant vector types");
    }
    const comparison = COMPARISON_OPS.has(op);
    if (returnBool && !comparison) throw this.error(opNode.from, "bool modifier can only be used on comparison operators");
    if (comparison && lt === "scalar" && rt === "scalar" && !returnBool) throw this.error(opNode.from, "comparisons between scalars must use BOOL modifier");
    if (SET_OPS.has(op)) {
      if (lt === "scalar" || rt === "scalar") throw this.error(opNode.from, `set operator "${op}" not allowed in binary scalar expression`);
      if (matching && matching.card !== "one-to-one") throw this.error(matchingPos, `no grouping allowed for "${op}" operation`);
    }
    if (matching && (lt !== "vector" || rt !== "vector")) throw this.error(matchingPos, "vector matching only allowed between instant vectors");
    if (lt === "vector" && rt === "vector") {
      matching ??= { card: "one-to-one", on: false, labels: [], include: [] };
      if (SET_OPS.has(op)) matching.card = "many-to-many";
    }
    return { kind: "binary", op, lhs, rhs, returnBool, matching };
  }

  /**
   * Lezer reads `-2 ^ 2` as (-2)^2; Prometheus' grammar binds `^` tighter than unary minus,
   * so a signed number literal on the left of `^` becomes the sign of the whole power.
   */
  private signedPowerBase(n: SyntaxNode): { sign: "-" | "+"; value: number } | undefined {
    const kids = this.children(n);
    const lhs = kids[0]!;
    const text = this.text(lhs).trim();
    if (kids[1]?.name !== "Pow" || lhs.name !== "NumberDurationLiteral" || !/^[-+]/.test(text)) return undefined;
    return { sign: text[0] as "-" | "+", value: this.literal(lhs, () => parseNumber(text.slice(1))) };
  }

  private matching(n: SyntaxNode): VectorMatching {
    const kids = this.children(n);
    const on = kids[0]!.name === "On";
    const labels = kids[1] && kids[1].name === "GroupingLabels" ? this.children(kids[1]).map((l) => this.labelName(l)) : [];
    let card: VectorMatching["card"] = "one-to-one";
    let include: string[] = [];
    const group = kids.find((k) => k.name === "GroupLeft" || k.name === "GroupRight");
    if (group) {
      card = group.name === "GroupLeft" ? "many-to-one" : "one-to-many";
      const after = kids[kids.indexOf(group) + 1];
      if (after?.name === "GroupingLabels") include = this.children(after).map((l) => this.labelName(l));
      if (on) {
        for (const l of include) if (labels.includes(l)) throw this.error(n.from, `label "${l}" must not occur in ON and GROUP clause at once`);
      }
    }
    return { card, on, labels, include };
  }

  private unary(n: SyntaxNode): Expr {
    const [opNode, inner] = this.children(n);
    const expr = this.expr(inner!);
    const t = typeOf(expr);
    if (t !== "scalar" && t !== "vector") throw this.error(n.from, `unary expression only allowed on expressions of type scalar or instant vector, got "${TYPE_NAMES[t]}"`);
    const op = this.text(opNode!).trim() as "-" | "+";
    if (expr.kind === "number") return { kind: "number", value: op === "-" ? -expr.value : expr.value };
    return { kind: "unary", op, expr };
  }
}
