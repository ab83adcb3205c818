import type { StringMap } from "../../../src/alerts/model.ts";
import { ApiError } from "../../../src/http/errors.ts";

/** Tags to add, as `name|value,name2|value2` (PUT /tags, PUT /events/tags). */
export function parseTagMap(s: string): StringMap {
  const out: StringMap = {};
  for (const token of s.split(",")) {
    const parts = token.split("|");
    if (parts.length !== 2 || parts[0]!.trim() === "" || parts[1]!.trim() === "") {
      throw new ApiError(400, `Bad arguments: Invalid Tag Criteria [${parts.join(", ")}]: expected name|value`);
    }
    out[parts[0]!.trim()] = parts[1]!.trim();
  }
  return out;
}
