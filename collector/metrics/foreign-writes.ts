/**
 * Points from the Prometheus world (remote write, Influx line protocol) into the store through
 * the same write path as the Hawkular writes: definitions get the series' labels as tags first,
 * so that no query sees a series without its labels, then the points are committed.
 */
import type { MetricType, MetricWrite, Tags } from "../../src/metrics/model.ts";
import { MAX_STRING_LENGTH } from "../../src/metrics/model.ts";
import { seriesId, seriesTags } from "../../src/prometheus/series-mapping.ts";
import { STALE_NAN } from "../../src/prometheus/staleness.ts";
import { ApiError } from "../../src/http/errors.ts";
import { metricIdProblem, tagsProblem, timestampProblem } from "../../src/metrics/limits.ts";
import { type WriteDeps, writePoints } from "./write-points.ts";

export interface ForeignSeries {
  name: string;
  labels: Record<string, string>;
  type: Extract<MetricType, "gauge" | "string">;
  /** `stale`: the value is a staleness marker (src/prometheus/staleness.ts), kept as such. */
  points: { timestamp: number; value: number | string; stale?: boolean }[];
}

export interface ForeignWriteResult {
  points: number;
  /** Samples that cannot be stored: NaN that is not a staleness marker, ±Inf. */
  skipped: number;
}

/** Checks what the Hawkular write schemas check; a bad point rejects the whole request (400). */
function validate(s: ForeignSeries): void {
  if (s.name === "") throw new ApiError(400, "series without a metric name (__name__)");
  for (const k of Object.keys(s.labels)) if (k === "") throw new ApiError(400, `series ${s.name} has a label with an empty name`);
  for (const p of s.points) {
    if (!Number.isSafeInteger(p.timestamp)) throw new ApiError(400, `timestamp must be an integer number of milliseconds (series ${s.name})`);
    const range = timestampProblem(p.timestamp);
    if (range) throw new ApiError(400, `${range} (series ${s.name})`);
    if (typeof p.value === "string" && p.value.length > MAX_STRING_LENGTH) {
      throw new ApiError(400, `string values are at most ${MAX_STRING_LENGTH} characters (series ${s.name})`);
    }
  }
}

export async function writeForeignSeries(deps: WriteDeps, tenant: string, series: ForeignSeries[], origin: string): Promise<ForeignWriteResult> {
  const byId = new Map<string, { type: ForeignSeries["type"]; tags: Tags; write: MetricWrite }>();
  let skipped = 0;
  for (const s of series) {
    validate(s);
    const id = seriesId(s.name, s.labels);
    // The limits of every other way in (docs/limits.md), on the id and tags the series maps to.
    const problem = metricIdProblem(id) ?? tagsProblem(seriesTags(s.name, s.labels), "metric");
    if (problem) throw new ApiError(400, `${problem} (series ${s.name})`);
    const key = `${s.type}\u0000${id}`;
    let entry = byId.get(key);
    if (!entry) byId.set(key, (entry = { type: s.type, tags: seriesTags(s.name, s.labels), write: { type: s.type, id, points: [] } }));
    for (const p of s.points) {
      if (p.stale) entry.write.points.push({ timestamp: p.timestamp, value: STALE_NAN });
      else if (typeof p.value === "number" && !Number.isFinite(p.value)) skipped++;
      else entry.write.points.push({ timestamp: p.timestamp, value: p.value });
    }
  }
  const entries = [...byId.values()].filter((e) => e.write.points.length > 0);
  await deps.store.ensureTags(
    tenant,
    entries.map((e) => ({ type: e.type, id: e.write.id, tags: e.tags })),
  );
  const points = await writePoints(
    deps,
    tenant,
    entries.map((e) => e.write),
    origin,
  );
  return { points, skipped };
}
