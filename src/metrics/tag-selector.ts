import { ApiError } from "../http/errors.ts";
import { matchesTags, parseTagQuery, TagQueryError } from "../tags/query/index.ts";
import type { Tags } from "./model.ts";
import { compileTagFilter } from "./tag-filter.ts";
import { parseTagList } from "./tag-list.ts";

/**
 * Compiles the `tags` selector of the POST query endpoints. Newer clients (the Grafana
 * datasource) send the tag query language (`app = 'web' AND dc IN ['a','b']`); older ones the
 * 0.16 tag list (`app:web,dc:a|b`). The query language is tried first: a tag list never
 * parses as a query (`:` is not a query character), while a bare name is a valid query.
 */
export function compileTagSelector(text: string): (tags?: Tags) => boolean {
  try {
    const q = parseTagQuery(text);
    return (tags) => matchesTags(q, tags);
  } catch (queryError) {
    try {
      return compileTagFilter(parseTagList(text));
    } catch (listError) {
      if (queryError instanceof TagQueryError && !text.includes(":")) throw new ApiError(400, `Invalid tag query: ${queryError.message}`);
      throw listError;
    }
  }
}
