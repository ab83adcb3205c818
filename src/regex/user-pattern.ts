import { RE2JS } from "re2js";

/**
 * Regular expressions that users send (tag filters, id filters, tag queries, alert string
 * conditions and event expressions) run on RE2's linear-time engine, never on the backtracking
 * one: a crafted pattern cannot stall the event loop. The pattern must match the whole value,
 * as Java's `String.matches` did upstream. Syntax and differences: docs/regular-expressions.md.
 */

/** Longest pattern accepted, in characters. */
export const MAX_PATTERN_LENGTH = 1024;
/**
 * Largest compiled program accepted, in RE2 instructions. Matching costs at most in proportion
 * to the program size per character of input, so this bounds the worst pattern to about 40 ms
 * per 1,000 characters (bench/regex.ts); ordinary patterns cost about a microsecond per value.
 * Long scans also yield to the event loop (src/http/yielding.ts).
 */
export const MAX_PROGRAM_SIZE = 2000;

export class PatternError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PatternError";
  }
}

/** A compiled user pattern: `test` tells whether it matches the whole value. */
export class UserPattern {
  private constructor(
    readonly source: string,
    private readonly re: RE2JS,
  ) {}

  test(value: string): boolean {
    return this.re.matches(value);
  }

  /** Size of the compiled program, in instructions (what the matching cost grows with). */
  get programSize(): number {
    return this.re.programSize();
  }

  /**
   * Compiles `source`; a pattern that is too long, too complex or not valid RE2 syntax throws a
   * PatternError saying which, for a 400.
   */
  static compile(source: string, opts: { ignoreCase?: boolean } = {}): UserPattern {
    if (source.length > MAX_PATTERN_LENGTH) {
      throw new PatternError(`regular expression is ${source.length} characters long; at most ${MAX_PATTERN_LENGTH} are accepted`);
    }
    let re: RE2JS;
    try {
      re = RE2JS.compile(source, opts.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
    } catch (e) {
      throw new PatternError(`invalid regular expression: ${(e as Error).message.replace(/^error parsing regexp: /, "")}`);
    }
    const size = re.programSize();
    if (size > MAX_PROGRAM_SIZE) {
      throw new PatternError(`regular expression is too complex (${size} instructions compiled; at most ${MAX_PROGRAM_SIZE}): use fewer or smaller repetitions`);
    }
    return new UserPattern(source, re);
  }
}

/** Compiles a user pattern, or returns the PatternError (for callers that report rather than throw). */
export function tryCompileUserPattern(source: string, opts: { ignoreCase?: boolean } = {}): UserPattern | PatternError {
  try {
    return UserPattern.compile(source, opts);
  } catch (e) {
    if (e instanceof PatternError) return e;
    throw e;
  }
}
