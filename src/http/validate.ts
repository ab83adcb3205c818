import type { z } from "zod";
import { ApiError } from "./errors.ts";

/** Formats zod issues into one readable line. */
export function describeIssues(error: z.ZodError, what: string): string {
  const parts = error.issues.slice(0, 5).map((i) => {
    const at = i.path.length ? i.path.join(".") : what;
    return `${at}: ${i.message}`;
  });
  const more = error.issues.length > 5 ? ` (and ${error.issues.length - 5} more)` : "";
  return `Invalid ${what}: ${parts.join("; ")}${more}`;
}

/**
 * Whether `e` is a zod validation error. Checked by shape rather than `instanceof` so that
 * code which only reports errors need not load zod (about 7 MB of memory in the agent).
 */
export function isZodError(e: unknown): e is z.ZodError {
  return e instanceof Error && e.name === "ZodError" && Array.isArray((e as { issues?: unknown }).issues);
}

/** Parses `value` with `schema`, turning validation failures into a 400 ApiError. */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, what = "input"): z.output<S> {
  const r = schema.safeParse(value);
  if (!r.success) throw new ApiError(400, describeIssues(r.error, what));
  return r.data;
}
