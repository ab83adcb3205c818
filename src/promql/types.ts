import type { Expr, ValueType } from "./ast.ts";
import { SIGNATURES } from "./signatures.ts";

/** The value type an expression evaluates to. */
export function typeOf(e: Expr): ValueType {
  switch (e.kind) {
    case "number":
      return "scalar";
    case "string":
      return "string";
    case "vector":
      return "vector";
    case "matrix":
    case "subquery":
      return "matrix";
    case "call":
      return SIGNATURES[e.name]!.returns;
    case "aggregate":
      return "vector";
    case "binary":
      return typeOf(e.lhs) === "scalar" && typeOf(e.rhs) === "scalar" ? "scalar" : "vector";
    case "unary":
      return typeOf(e.expr);
  }
}
