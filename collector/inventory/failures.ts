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
 * A 404 for a missing entity, as upstream's clients receive it (the Ruby client's recordings):
 * `No Resource found on any of the following paths: [[CanonicalPaths[/t;T/f;F/r;R]]]`, with the
 * `details` `{"entityType": "Resource", "path": [[{"paths": ["/t;T/f;F/r;R"]}]]}`.
 */
export function entityNotFound(path: CanonicalPath, message = `No ${CLASS_NAMES[path.type]} found on any of the following paths: [[CanonicalPaths[${path}]]]`): ApiError {
  return new ApiError(404, message, { entityType: CLASS_NAMES[path.type], path: [[{ paths: [path.toString()] }]] });
}

/**
 * A 409 for an entity that exists, as upstream's clients receive it: the message names its id
 * and the filters leading to it (`Entity with id 'r1' already exists at some of the positions:
 * [[Types[Tenant], Ids[t], Related[, rel='contains', role=SOURCE], Types[Resource], Ids[r1]]]`;
 * a feed's starts `Feed with id 'Feed[path='/t;t/f;f1']' has been already registered. `), and
 * the `details` hold the same chain (`{"types": [...]}`, `{"ids": [...]}`, `contains` between).
 */
export function entityExists(path: CanonicalPath, message?: string): ApiError {
  const chain: Record<string, unknown>[] = [];
  const text: string[] = [];
  path.segments.forEach((s, i) => {
    if (i > 0) {
      chain.push({ relationshipName: "contains", entityRole: "SOURCE" });
      text.push("Related[, rel='contains', role=SOURCE]");
    }
    chain.push({ types: [`${MODEL_PACKAGE}.${CLASS_NAMES[s.type]}`] }, { ids: [s.id] });
    text.push(`Types[${CLASS_NAMES[s.type]}]`, `Ids[${s.id}]`);
  });
  const id = path.segments[path.segments.length - 1]!.id;
  const exists = `Entity with id '${id}' already exists at some of the positions: [[${text.join(", ")}]]`;
  const feed = path.type === "f" ? `Feed with id 'Feed[path='${path}']' has been already registered. ` : "";
  return new ApiError(409, message ?? feed + exists, { entityId: id, paths: [chain] });
}

/** `details` of a 404 for a missing relationship. */
export function relationshipNotFound(id: string, message = `No relationship with id '${id}'`): ApiError {
  return new ApiError(404, message, { relationshipNameOrId: id, paths: [] });
}
