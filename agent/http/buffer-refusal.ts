import { ApiError } from "../../src/http/errors.ts";
import { storageFailure, storageFailureMessage } from "../../src/sqlite/storage-failure.ts";

/** A write the agent buffer could not take, as an HTTP answer: 507 on a full disk, else 503 (retry). */
export function bufferRefusal(e: unknown): ApiError {
  const storage = storageFailure(e);
  if (storage) return new ApiError(storage === "full" ? 507 : 503, `The agent buffer cannot accept data. ${storageFailureMessage(storage)}`);
  return new ApiError(503, `The agent buffer cannot accept data: ${(e as Error).message}`);
}
