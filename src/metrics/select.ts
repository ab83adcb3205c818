import { ApiError } from "../http/errors.ts";
import type { MetricDefinition, MetricType } from "./model.ts";
import { compileTagSelector } from "./tag-selector.ts";
import type { MetricsReader } from "./reader.ts";

export const METRICS_OR_TAGS = "Either metrics or tags parameter must be used";
export const NOT_BOTH = "Cannot use both the metrics and tags parameters";

/**
 * The definitions a multi-metric read works on: named by `ids` (names without a definition
 * are ignored, as upstream) or matched by a `tags` selector (query language or tag list).
 * Exactly one of the two must be given.
 */
export async function selectMetrics(
  store: MetricsReader,
  tenant: string,
  type: MetricType,
  ids: readonly string[] | undefined,
  tags: string | undefined,
): Promise<MetricDefinition[]> {
  const byIds = ids !== undefined && ids.length > 0;
  const byTags = tags !== undefined && tags.trim() !== "";
  if (!byIds && !byTags) throw new ApiError(400, METRICS_OR_TAGS);
  if (byIds && byTags) throw new ApiError(400, NOT_BOTH);
  if (byIds) return store.findMetrics(tenant, { type, ids: [...ids] });
  const { match } = compileTagSelector(tags!);
  return (await store.findMetrics(tenant, { type })).filter((d) => match(d.tags));
}
