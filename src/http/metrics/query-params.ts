import * as z from "zod";
import type { ServiceContext } from "../service.ts";
import { parseWith } from "../validate.ts";

/** Query-string scalars: all arrive as strings; these give 400s with readable messages. */
const int64 = (name: string) =>
  z
    .string()
    .trim()
    .regex(/^[+-]?\d+$/, `${name} must be an integer`)
    .transform(Number)
    .refine(Number.isSafeInteger, `${name} is out of range`);

const int32 = (name: string) =>
  int64(name).refine((n) => n >= -2_147_483_648 && n <= 2_147_483_647, `${name} is out of range for a 32-bit integer`);

const bool = (name: string) =>
  z
    .string()
    .trim()
    .toLowerCase()
    .refine((s) => s === "true" || s === "false" || s === "", `${name} must be true or false`)
    .transform((s) => s === "true" || s === "");

export const q = { int64, int32, bool };

/** Parses the single-valued query parameters of the request with a zod object schema. */
export function parseQuery<S extends z.ZodType>(c: ServiceContext, schema: S): z.output<S> {
  return parseWith(schema, c.req.query(), "query parameter");
}

/**
 * `start` and `end` stay text until the request's clock is known: a timestamp in ms or a time
 * relative to now (`-11mn`); see parseTimeParam.
 */
const timeFields = {
  start: z.string().optional(),
  end: z.string().optional(),
  fromEarliest: bool("fromEarliest").optional(),
};

export const rawReadQuery = z.object({
  ...timeFields,
  limit: int32("limit").optional(),
  order: z.string().optional(),
  distinct: bool("distinct").optional(),
});

export const statsQuery = z.object({
  ...timeFields,
  buckets: int32("buckets").optional(),
  bucketDuration: z.string().optional(),
  percentiles: z.string().optional(),
  tags: z.string().optional(),
  stacked: bool("stacked").optional(),
  limit: int32("limit").optional(),
  order: z.string().optional(),
});
