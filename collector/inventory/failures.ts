import { ZodError } from "zod";
import { ApiError } from "../../src/http/errors.ts";
import { describeIssues } from "../../src/http/validate.ts";
import { postgresRejectedText } from "../../src/postgres/failure.ts";
import type { CanonicalPath } from "../../src/inventory/canonical-path.ts";
import { PathError } from "../../src/inventory/path-codec.ts";
import { CLASS_NAMES } from "../../src/inventory/segment-types.ts";

/** Bad input found by the shared inventory code (paths, blueprints) as a 400, other errors unchanged. */
export function asApiError(e: unknown): unknown {
  if (e instanceof PathError) return new ApiError(400, e.message);
  if (e instanceof ZodError) return new ApiError(400, describeIssues(e, "request body"));
  const rejectedText = postgresRejectedText(e);
  if (rejectedText) return new ApiError(400, rejectedText);
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

const MODEL_PACKAGE = "org.hawkular.inventory.api.model";

/**
 * `details` of a 404 for a missing entity, in the shape upstream's clients receive:
 * `{"entityType": "Resource", "path": [[{"paths": ["/t;T/f;F/r;R"]}]]}`.
 */
export function entityNotFound(path: CanonicalPath, message = `No ${CLASS_NAMES[path.type]} found at ${path}`): ApiError {
  return new ApiError(404, message, { entityType: CLASS_NAMES[path.type], path: [[{ paths: [path.toString()] }]] });
}

/**
 * `details` of a 409 for an entity that exists: its id and the path to it as upstream's filter
 * chain (`{"types": [...]}`, `{"ids": [...]}`, and `contains` between the segments).
 */
export function entityExists(path: CanonicalPath, message = `Entity ${path} already exists`): ApiError {
  const chain: Record<string, unknown>[] = [];
  path.segments.forEach((s, i) => {
    if (i > 0) chain.push({ relationshipName: "contains", entityRole: "SOURCE" });
    chain.push({ types: [`${MODEL_PACKAGE}.${CLASS_NAMES[s.type]}`] }, { ids: [s.id] });
  });
  return new ApiError(409, message, { entityId: path.segments[path.segments.length - 1]!.id, paths: [chain] });
}

/** `details` of a 404 for a missing relationship. */
export function relationshipNotFound(id: string, message = `No relationship with id '${id}'`): ApiError {
  return new ApiError(404, message, { relationshipNameOrId: id, paths: [] });
}
