import type * as z from "zod";
import { readJson } from "../../../src/http/body.ts";
import type { ServiceContext } from "../../../src/http/service.ts";
import { parseWith } from "../../../src/http/validate.ts";

/** The JSON body, validated: 400 naming the problem when empty, malformed or invalid. */
export async function jsonBody<S extends z.ZodType>(c: ServiceContext, schema: S, what: string): Promise<z.output<S>> {
  return parseWith(schema, await readJson(c), what);
}
