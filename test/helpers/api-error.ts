import { expect } from "vitest";
import { ApiError } from "../../src/http/errors.ts";

/** Asserts that `fn` throws an ApiError with this status and message. */
export function expectApiError(fn: () => unknown, status: number, message: string | RegExp): void {
  let caught: unknown;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  expect(caught, "expected an ApiError").toBeInstanceOf(ApiError);
  const err = caught as ApiError;
  expect(err.status).toBe(status);
  if (typeof message === "string") expect(err.message).toBe(message);
  else expect(err.message).toMatch(message);
}
