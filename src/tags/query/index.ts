export { regexValue, type TagQuery, TagQueryError, type TagValue } from "./ast.ts";
export { matchesTags, tagQueryKeys } from "./evaluate.ts";
export { parseLegacyTags } from "./legacy.ts";
export { parseTagQuery, type TagQueryDialect } from "./parser.ts";
