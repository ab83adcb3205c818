import { ZodError } from "zod";
import { ApiError } from "../../src/http/errors.ts";
import { describeIssues } from "../../src/http/validate.ts";
import { PathError } from "../../src/inventory/path-codec.ts";

/** Bad input found by the shared inventory code (paths, blueprints) as a 400, other errors unchanged. */
export function asApiError(e: unknown): unknown {
  if (e instanceof PathError) return new ApiError(400, e.message);
  if (e instanceof ZodError) return new ApiError(400, describeIssues(e, "request body"));
  return e;
}

/** The HTTP status an error stands for (500 for anything unexpected). */
export function statusOf(e: unknown): number {
  const err = asApiError(e);
  return err instanceof ApiError ? err.status : 500;
}

/** Runs `fn`, turning path and validation errors into 400 ApiErrors. */
export function checked<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    throw asApiError(e);
  }
}
