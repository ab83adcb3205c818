import { ApiError } from "../http/errors.ts";
import { matchesTags, parseTagQuery, TagQueryError, tagQueryKeys } from "../tags/query/index.ts";
import type { Tags } from "./model.ts";
import { compileTagFilter } from "./tag-filter.ts";
import { parseTagList } from "./tag-list.ts";

export interface TagSelector {
  /** Whether a metric (or point) with these tags is selected. */
  match: (tags?: Tags) => boolean;
  /** The tag names the selector mentions, in order (the keys of a tag-values answer). */
  names: string[];
}

/**
 * Compiles a `tags` selector of the metrics interface: `GET /metrics?tags=`, `GET /{type}?tags=`,
 * the multi-metric stats and the POST queries. Newer clients (the Grafana datasource from
 * Hawkular Metrics 0.24 on) send the tag query language in its metrics dialect
 * (`app = 'web' AND dc IN ['a','b']`); older ones the 0.16 tag list (`app:web,dc:a|b`). As
 * upstream, the query language is tried first: a tag list never parses as a query (`:` is not
 * a query character), while a bare name is a valid query.
 */
export function compileTagSelector(text: string): TagSelector {
  try {
    const q = parseTagQuery(text, "metrics");
    return { match: (tags) => matchesTags(q, tags), names: tagQueryKeys(q) };
  } catch (queryError) {
    // Without a colon it can only be the query language (a bare name already parsed as one).
    if (queryError instanceof TagQueryError && !text.includes(":")) throw new ApiError(400, `Invalid tag query: ${queryError.message}`);
    const list = parseTagList(text);
    if (list.size === 0) throw new ApiError(400, "Invalid tags: the tag filter is empty");
    return { match: compileTagFilter(list), names: [...list.keys()] };
  }
}
