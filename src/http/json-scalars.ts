// Namespace import: under vitest on Bun the named export `z` of zod comes through undefined.
import * as z from "zod";

/**
 * Scalars of JSON request bodies, read as Hawkular's JSON reader (Jackson) read them, so that
 * every interface accepts what its clients send: numbers may arrive as numeric strings (the
 * Python client sends timestamps as `"1500000000000"`), booleans as `"true"`/`"false"`.
 * Nulls never reach these: the body reader removes null properties (body.ts).
 */

const NUMERIC = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** A string holding a decimal number, as a number (surrounding spaces allowed, as Jackson). */
export const numericString = z.string().trim().regex(NUMERIC, "not a number").transform(Number);

/** A string that is exactly a decimal number (no spaces), as a number. */
export const exactNumericString = z.string().regex(NUMERIC, "not a number").transform(Number);

/** A string that is exactly a whole number in digits, as a number. */
export const exactIntegerString = z
  .string()
  .regex(/^\d+$/, "not a whole number")
  .transform(Number);

/** A finite number, or a string holding one. */
export const jsonNumber = z.union([z.number(), numericString]).pipe(z.number().refine(Number.isFinite, "must be a finite number"));

/** A safe integer, or a string holding one. */
export const jsonInteger = jsonNumber.pipe(z.number().int("must be an integer").refine(Number.isSafeInteger, "is out of range"));

/** true/false, or the strings "true"/"false" in any case. */
export const jsonBoolean = z.union(
  [
    z.boolean(),
    z
      .string()
      .trim()
      .toLowerCase()
      .pipe(z.enum(["true", "false"]))
      .transform((v) => v === "true"),
  ],
  { error: "must be true or false" },
);

/**
 * Wraps a number schema so that a numeric string is read as its number first; the schema keeps
 * its own bounds and messages (for chains such as `z.number().int().min(1)`).
 */
export function lenientNumber<S extends z.ZodType>(schema: S) {
  return z.preprocess((v) => (typeof v === "string" && NUMERIC.test(v.trim()) ? Number(v) : v), schema);
}
