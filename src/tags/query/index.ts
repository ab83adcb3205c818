export { type TagQuery, TagQueryError, type TagValue } from "./ast.ts";
export { matchesTags } from "./evaluate.ts";
export { parseLegacyTags } from "./legacy.ts";
export { parseTagQuery } from "./parser.ts";
