// Namespace import: under vitest on Bun, zod's re-exported `z` binding resolves to undefined.
import * as z from "zod";
import { lenientNumber } from "../../../src/http/json-scalars.ts";
import { INFORMATION_CRITERIA } from "../../../src/forecast/criteria.ts";
import { MAX_WINDOW_SIZE, MIN_WINDOW_SIZE } from "../../../src/forecast/forecaster.ts";
import { MODEL_NAMES } from "../../../src/forecast/models.ts";

/** Most points one forecast request may ask for. */
export const MAX_AHEAD = 10_000;

const int = (name: string) => z.number({ error: `${name} must be a number` }).int(`${name} must be an integer`);

/** Seconds between points; the forecast steps by it. */
const collectionInterval = lenientNumber(
  int("collectionInterval").positive("collectionInterval must be greater than 0 (seconds)").max(10 * 365 * 86_400, "collectionInterval is too large"),
);

/** RestBlueprint: POST /metrics. */
export const blueprintSchema = z.strictObject({
  metricId: z.string({ error: "metricId is required" }).trim().min(1, "metricId must not be empty"),
  collectionInterval: collectionInterval.nullish().transform((v) => v ?? undefined),
});

const driftSchema = z.discriminatedUnion(
  "strategy",
  [
    z.strictObject({
      strategy: z.literal("PeriodicIntervalStrategy"),
      period: lenientNumber(int("period").min(1, "period must be at least 1")).default(25),
    }),
    z.strictObject({
      strategy: z.literal("ErrorChangeStrategy"),
      percentageChange: lenientNumber(
        z.number().gt(0, "percentageChange must be greater than 0").max(100, "percentageChange must be at most 100"),
      ),
      statistics: z.enum(["MAE", "MSE"], { error: "statistics must be MAE or MSE" }).default("MAE"),
    }),
  ],
  { error: "conceptDriftStrategy.strategy must be PeriodicIntervalStrategy or ErrorChangeStrategy" },
);

const updateFields = {
  modelToUse: z.enum(MODEL_NAMES, { error: `modelToUse must be one of ${MODEL_NAMES.join(", ")}` }).optional(),
  ic: z.enum(INFORMATION_CRITERIA, { error: `ic must be one of ${INFORMATION_CRITERIA.join(", ")}` }).optional(),
  period: lenientNumber(
    int("period")
      .min(2, "period must be at least 2")
      .max(Math.floor(MAX_WINDOW_SIZE / 3), `period must be at most ${Math.floor(MAX_WINDOW_SIZE / 3)}`),
  ).optional(),
  windowSize: lenientNumber(
    int("windowSize")
      .min(MIN_WINDOW_SIZE, `windowSize must be at least ${MIN_WINDOW_SIZE}`)
      .max(MAX_WINDOW_SIZE, `windowSize must be at most ${MAX_WINDOW_SIZE}`),
  ).optional(),
  conceptDriftStrategy: driftSchema.optional(),
};

/**
 * Update: PUT /metrics/{id}/forecaster. Absent fields (null is absent) keep their value, except
 * `period`, which every forecaster update sets, as upstream's did: without one the season is
 * detected again.
 */
export const forecasterUpdateSchema = z.strictObject(updateFields).transform((u) => ({ ...u, period: u.period ?? null }));

/** PUT /metrics/{id}: the Update fields and the metric's collectionInterval. */
export const metricUpdateSchema = z.strictObject({ ...updateFields, collectionInterval: collectionInterval.optional() });

const finite = (name: string) => lenientNumber(z.number({ error: `${name} must be a number` }).refine(Number.isFinite, `${name} must be finite`));

/**
 * Body of POST /metrics/{id}/forecaster/learn. Upstream's data point also has `min` and `max`
 * (a forecast can be posted back as it came): accepted and ignored.
 */
export const learnBodySchema = z
  .array(
    z
      .strictObject({
        timestamp: lenientNumber(int("timestamp").refine(Number.isSafeInteger, "timestamp is out of range")),
        value: finite("value"),
        min: finite("min").optional(),
        max: finite("max").optional(),
      })
      .transform(({ timestamp, value }) => ({ timestamp, value })),
  )
  .min(1, "Payload is empty");

/** Query of GET /metrics/{id}/forecaster/forecast. */
export const forecastQuerySchema = z.object({
  ahead: z
    .string()
    .trim()
    .regex(/^\+?\d+$/, "ahead must be a positive integer")
    .transform(Number)
    .refine((n) => n >= 1 && n <= MAX_AHEAD, `ahead must be between 1 and ${MAX_AHEAD}`)
    .default(1),
});
