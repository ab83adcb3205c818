import type { Context } from "hono";
import { ApiError } from "./errors.ts";

/** Reads a JSON request body; an empty or unparsable body is a 400. */
export async function readJson(c: Context): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === "") throw new ApiError(400, "Payload is empty");
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new ApiError(400, `Malformed JSON body: ${(e as Error).message}`);
  }
}

/** Like readJson, but an empty body gives `undefined` instead of a 400. */
export async function readOptionalJson(c: Context): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new ApiError(400, `Malformed JSON body: ${(e as Error).message}`);
  }
}
