import { TagQueryError } from "./ast.ts";

export type TokenKind = "word" | "quoted" | "and" | "or" | "not" | "in" | "=" | "!=" | "~" | "!~" | "(" | ")" | "[" | "]" | "," | "end";

export interface Token {
  kind: TokenKind;
  /** For words the text; for quoted values the text between the quotes, escapes kept as written. */
  text: string;
  position: number;
}

const WORD_START = /[A-Za-z0-9_.]/;
const WORD_PART = /[-A-Za-z0-9_.]/;
const KEYWORDS: Record<string, TokenKind> = { and: "and", or: "or", not: "not", in: "in" };

/** Splits a tag query into tokens; keywords are case-insensitive and cannot be tag names. */
export function tokenize(input: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const ch = input[i]!;
    if (ch === " " || ch === "\t" || ch === "\n" || ch === "\r") {
      i++;
      continue;
    }
    const start = i;
    if (ch === "(" || ch === ")" || ch === "[" || ch === "]" || ch === ",") {
      out.push({ kind: ch, text: ch, position: start });
      i++;
    } else if (ch === "=") {
      // the grammar's token is "=", the spec writes "=="; both mean equality
      i += input[i + 1] === "=" ? 2 : 1;
      out.push({ kind: "=", text: "=", position: start });
    } else if (ch === "!" && input[i + 1] === "=") {
      i += 2;
      out.push({ kind: "!=", text: "!=", position: start });
    } else if (ch === "~") {
      // regular-expression match of the metrics language
      i++;
      out.push({ kind: "~", text: "~", position: start });
    } else if (ch === "!" && input[i + 1] === "~") {
      i += 2;
      out.push({ kind: "!~", text: "!~", position: start });
    } else if (ch === "'") {
      i++;
      let text = "";
      for (;;) {
        if (i >= input.length) throw new TagQueryError(`unterminated quoted value starting at position ${start}`, start);
        const c = input[i]!;
        if (c === "\\") {
          if (i + 1 >= input.length) throw new TagQueryError(`unterminated quoted value starting at position ${start}`, start);
          text += c + input[i + 1];
          i += 2;
        } else if (c === "'") {
          i++;
          break;
        } else {
          text += c;
          i++;
        }
      }
      out.push({ kind: "quoted", text, position: start });
    } else if (WORD_START.test(ch)) {
      while (i < input.length && WORD_PART.test(input[i]!)) i++;
      const text = input.slice(start, i);
      out.push({ kind: KEYWORDS[text.toLowerCase()] ?? "word", text, position: start });
    } else {
      const hint = ch === "*" ? " (a wildcard value must be quoted: '*')" : "";
      throw new TagQueryError(`unexpected character '${ch}' at position ${start}${hint}`, start);
    }
  }
  out.push({ kind: "end", text: "", position: input.length });
  return out;
}
