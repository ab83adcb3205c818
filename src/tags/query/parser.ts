import { regexValue, type TagQuery, TagQueryError, type TagValue } from "./ast.ts";
import { type Token, type TokenKind, tokenize } from "./lexer.ts";

/**
 * The two dialects of the language. They share the grammar and differ in what a value means:
 * - `alerts` (Hawkular Alerting, research §2.9): a quoted value is a regular expression, a word
 *   is an exact value, with `=`/`!=` and in IN lists alike;
 * - `metrics` (Hawkular Metrics 0.24+, `GET /metrics?tags=…`): `=`/`!=` compare exactly, quoted or
 *   not; `~`/`!~` match a regular expression; every value of an IN list is a regular expression.
 * Both accept `~`/`!~`, and `'*'` as a regular expression matches any value.
 */
export type TagQueryDialect = "alerts" | "metrics";

/**
 * Recursive-descent parser of the tag query language:
 *
 *   query   := object END
 *   object  := primary ((AND | OR) primary)*        left to right, AND and OR bind equally
 *   primary := '(' object ')' | tagexp
 *   tagexp  := NOT key | key | key ('=' | '==' | '!=' | '~' | '!~') value | key [NOT] IN '[' [value (',' value)*] ']'
 *   value   := word | 'quoted text'
 *
 * AND and OR share one precedence, as in the upstream grammars: `a or b and c` is `(a or b) and c`.
 */
export function parseTagQuery(input: string, dialect: TagQueryDialect = "alerts"): TagQuery {
  if (input.trim().length === 0) throw new TagQueryError("tag query is empty", 0);
  const p = new Parser(tokenize(input), dialect);
  const q = p.object();
  p.expect("end", "AND, OR or the end of the query");
  return q;
}

function describe(t: Token): string {
  if (t.kind === "end") return "the end of the query";
  if (t.kind === "quoted") return `'${t.text}'`;
  return `'${t.text}'`;
}

class Parser {
  private i = 0;
  constructor(
    private readonly tokens: Token[],
    private readonly dialect: TagQueryDialect,
  ) {}

  private peek(): Token {
    return this.tokens[this.i]!;
  }

  private next(): Token {
    return this.tokens[this.i++]!;
  }

  private fail(expected: string, t = this.peek()): never {
    throw new TagQueryError(`expected ${expected} at position ${t.position} but found ${describe(t)}`, t.position);
  }

  expect(kind: TokenKind, expected: string): Token {
    const t = this.peek();
    if (t.kind !== kind) this.fail(expected);
    return this.next();
  }

  object(): TagQuery {
    let left = this.primary();
    for (;;) {
      const t = this.peek();
      if (t.kind !== "and" && t.kind !== "or") return left;
      this.next();
      const right = this.primary();
      left = { kind: t.kind, left, right };
    }
  }

  private primary(): TagQuery {
    const t = this.peek();
    if (t.kind === "(") {
      this.next();
      const inner = this.object();
      this.expect(")", "')' or AND/OR");
      return inner;
    }
    if (t.kind === "not") {
      this.next();
      return { kind: "hasNot", key: this.key() };
    }
    return this.tagexp();
  }

  private key(): string {
    const t = this.peek();
    if (t.kind !== "word") this.fail("a tag name");
    this.next();
    return t.text;
  }

  private tagexp(): TagQuery {
    const key = this.key();
    const t = this.peek();
    switch (t.kind) {
      case "=":
      case "!=":
        this.next();
        return { kind: "equals", key, value: this.value(this.dialect === "metrics" ? "text" : "asWritten"), negate: t.kind === "!=" };
      case "~":
      case "!~":
        this.next();
        return { kind: "equals", key, value: this.value("regex"), negate: t.kind === "!~" };
      case "in":
        this.next();
        return { kind: "in", key, values: this.array(), negate: false };
      case "not":
        this.next();
        this.expect("in", "IN after NOT");
        return { kind: "in", key, values: this.array(), negate: true };
      default:
        return { kind: "has", key };
    }
  }

  /**
   * A value: `text` reads it exactly, `regex` as a regular expression, `asWritten` a word exactly
   * and a quoted value as a regular expression.
   */
  private value(as: "text" | "regex" | "asWritten"): TagValue {
    const t = this.peek();
    if (t.kind !== "word" && t.kind !== "quoted") return this.fail("a value (a name-like word or a quoted value)");
    this.next();
    const regex = as === "regex" || (as === "asWritten" && t.kind === "quoted");
    return regex ? regexValue(t.text, t.position) : { kind: "text", text: t.text };
  }

  private array(): TagValue[] {
    this.expect("[", "'['");
    const values: TagValue[] = [];
    if (this.peek().kind === "]") {
      this.next();
      return values;
    }
    const as = this.dialect === "metrics" ? "regex" : "asWritten";
    for (;;) {
      values.push(this.value(as));
      const t = this.next();
      if (t.kind === "]") return values;
      if (t.kind !== ",") this.fail("',' or ']'", t);
    }
  }
}
