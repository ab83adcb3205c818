import { regexValue, type TagQuery, TagQueryError, type TagValue } from "./ast.ts";
import { type Token, type TokenKind, tokenize } from "./lexer.ts";

/**
 * Recursive-descent parser of the tag query language (research §2.9):
 *
 *   query   := object END
 *   object  := primary ((AND | OR) primary)*        left to right, AND and OR bind equally
 *   primary := '(' object ')' | tagexp
 *   tagexp  := NOT key | key | key ('=' | '==' | '!=') value | key [NOT] IN '[' [value (',' value)*] ']'
 *   value   := word | 'quoted regex'
 *
 * AND and OR share one precedence, as in the upstream grammar: `a or b and c` is `(a or b) and c`.
 */
export function parseTagQuery(input: string): TagQuery {
  if (input.trim().length === 0) throw new TagQueryError("tag query is empty", 0);
  const p = new Parser(tokenize(input));
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
  constructor(private readonly tokens: Token[]) {}

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
        return { kind: "equals", key, value: this.value(), negate: t.kind === "!=" };
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

  private value(): TagValue {
    const t = this.peek();
    if (t.kind === "word") {
      this.next();
      return { kind: "text", text: t.text };
    }
    if (t.kind === "quoted") {
      this.next();
      return regexValue(t.text, t.position);
    }
    return this.fail("a value (a name-like word or a quoted regular expression)");
  }

  private array(): TagValue[] {
    this.expect("[", "'['");
    const values: TagValue[] = [];
    if (this.peek().kind === "]") {
      this.next();
      return values;
    }
    for (;;) {
      values.push(this.value());
      const t = this.next();
      if (t.kind === "]") return values;
      if (t.kind !== ",") this.fail("',' or ']'", t);
    }
  }
}
