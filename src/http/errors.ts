/**
 * An error that maps to an HTTP status and an `{"errorMsg": ...}` body, with `details` beside
 * it when given (the inventory's errors carry them, as upstream's did).
 */
export class ApiError extends Error {
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 405 | 406 | 408 | 409 | 413 | 415 | 422 | 429 | 500 | 503 | 507,
    message: string,
    readonly details?: unknown,
    /** Response headers to send with it (a Retry-After). */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

export const badRequest = (msg: string) => new ApiError(400, msg);
export const notFound = (msg: string) => new ApiError(404, msg);
export const conflict = (msg: string) => new ApiError(409, msg);
