export { compileEventExpression, eventExpressionMatches } from "../event-expression.ts";
