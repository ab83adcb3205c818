import * as z from "zod";
import { exactIntegerString, exactNumericString } from "../http/json-scalars.ts";
import { metricIdProblem, tagsProblem, timestampProblem } from "./limits.ts";
import { AVAILABILITY_VALUES, MAX_STRING_LENGTH, type MetricType, type MetricWrite } from "./model.ts";

/**
 * Request schemas of the metrics write endpoints, shared by the collector and the agent's
 * local write API. Values are JSON numbers (a string such as " 5 " is refused); timestamps are
 * JSON numbers or a string of digits exactly (what hawkular-client-python sends for a datetime);
 * ids, tags and timestamps are held to the limits of limits.ts.
 */

/** Adds the problem `check` finds (a limit) as an issue. */
function limit<T>(check: (v: T) => string | undefined) {
  return (v: T, ctx: z.RefinementCtx) => {
    const problem = check(v);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  };
}

const TIMESTAMP_MSG = "timestamp must be an integer number of milliseconds (a JSON number)";
// The plain integer first: it is the common case, and alone it costs about a type check.
export const timestampSchema = z
  .union([z.int({ error: TIMESTAMP_MSG }), exactIntegerString.pipe(z.int({ error: TIMESTAMP_MSG }))], { error: TIMESTAMP_MSG })
  .superRefine(limit(timestampProblem));

const tagMap = z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]).transform(String));
/** Tags of a metric definition (numbers and booleans read as their text). */
export const tagsSchema = tagMap.superRefine(limit((t: Record<string, string>) => tagsProblem(t, "metric")));
/** Tags of a data point. */
export const pointTagsSchema = tagMap.superRefine(limit((t: Record<string, string>) => tagsProblem(t, "point")));

const GAUGE_MSG = "gauge values are finite JSON numbers";
const gaugeValue = z.number({ error: GAUGE_MSG });
const COUNTER_MSG = "counter values are integers (JSON numbers)";
const counterValue = z.int({ error: COUNTER_MSG });
const availabilityValue = z
  .string()
  .transform((s) => s.toLowerCase())
  .pipe(z.enum(AVAILABILITY_VALUES, { error: "availability must be up, down, unknown or admin" }));
const stringValue = z.string().max(MAX_STRING_LENGTH, `string values are at most ${MAX_STRING_LENGTH} characters`);

const valueSchemas = {
  gauge: gaugeValue,
  counter: counterValue,
  availability: availabilityValue,
  string: stringValue,
} as const;

function pointSchema(type: MetricType) {
  return z.object({
    timestamp: timestampSchema,
    value: valueSchemas[type],
    tags: pointTagsSchema.optional(),
  });
}

export const pointSchemas = {
  gauge: pointSchema("gauge"),
  counter: pointSchema("counter"),
  availability: pointSchema("availability"),
  string: pointSchema("string"),
} as const;

export type ParsedPoint = z.output<(typeof pointSchemas)[MetricType]>;

/** Body of POST /{type}/{id}/raw: a non-empty array of points. */
export function pointsBodySchema(type: MetricType) {
  return z.array(pointSchemas[type]).min(1, "Payload is empty");
}

export const metricIdSchema = z.string().trim().min(1, "metric id must not be empty").superRefine(limit(metricIdProblem));

/** One metric with points: `data` (older clients) or `dataPoints` (the spec's field). */
function metricWithPointsSchema(type: MetricType) {
  return z
    .object({
      id: metricIdSchema,
      data: z.array(pointSchemas[type]).optional(),
      dataPoints: z.array(pointSchemas[type]).optional(),
    })
    .transform((m): MetricWrite => ({ type, id: m.id, points: [...(m.data ?? []), ...(m.dataPoints ?? [])] }));
}

/** Body of POST /{type}/raw. */
export function metricsBodySchema(type: MetricType) {
  return z.array(metricWithPointsSchema(type)).min(1, "Payload is empty");
}

/** Body of POST /metrics/raw (MixedMetricsRequest). */
export const mixedBodySchema = z
  .object({
    gauges: z.array(metricWithPointsSchema("gauge")).optional(),
    counters: z.array(metricWithPointsSchema("counter")).optional(),
    availabilities: z.array(metricWithPointsSchema("availability")).optional(),
    strings: z.array(metricWithPointsSchema("string")).optional(),
  })
  .transform((b): MetricWrite[] => [...(b.gauges ?? []), ...(b.counters ?? []), ...(b.availabilities ?? []), ...(b.strings ?? [])])
  .refine((w) => w.length > 0, "Payload is empty");

/** A positive whole number of days, given as a number or a numeric string. */
export const retentionDaysSchema = z
  .union([z.number(), exactNumericString])
  .pipe(z.number().int("retention is a whole number of days").positive("retention must be a positive number of days"));
