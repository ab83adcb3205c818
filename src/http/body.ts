import type { Context } from "hono";
import { readBodyText } from "./body-limit.ts";
import { ApiError } from "./errors.ts";

/**
 * Reads a JSON request body; an empty or unparsable body is a 400. A property whose value is
 * `null` is treated as if it were not sent (see `withoutNullProperties`), in every interface.
 */
export async function readJson(c: Context): Promise<unknown> {
  return parseJsonBody(await readJsonText(c));
}

/** The text of a JSON request body, unparsed (for parsing elsewhere); an empty body is a 400. */
export async function readJsonText(c: Context): Promise<string> {
  const text = await readBodyText(c);
  if (text.trim() === "") throw new ApiError(400, "Payload is empty");
  return text;
}

/** The text of a JSON body read as bytes (decoded as readBodyText decodes); an empty body is a 400. */
export function jsonText(bytes: Uint8Array): string {
  const text = new TextDecoder().decode(bytes);
  if (text.trim() === "") throw new ApiError(400, "Payload is empty");
  return text;
}

/** Like readJson, but an empty body gives `undefined` instead of a 400. */
export async function readOptionalJson(c: Context): Promise<unknown> {
  const text = await readBodyText(c);
  if (text.trim() === "") return undefined;
  return parseJsonBody(text);
}

/** JSON.parse with a 400 for malformed text, and null properties removed. */
export function parseJsonBody(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new ApiError(400, `Malformed JSON body: ${(e as Error).message}`);
  }
  // Bodies without a null anywhere (every ingest batch) skip the walk: a scan of the text is
  // far cheaper than visiting every point object.
  return text.includes("null") ? withoutNullProperties(value) : value;
}

/**
 * Removes, in place and recursively, every object property whose value is `null`: clients
 * (the Go and Python ones among them) send `"retentions": null` or `"start": null` for fields
 * they leave unset, and Hawkular read those as absent. Array elements are kept (a `null` point is
 * still an invalid point), and so is everything inside a property named `value`: that is where
 * free-form data lives (inventory data entities, whose structured value may hold nulls that its
 * hash covers). A `value` that is itself null is removed like any other property.
 */
export function withoutNullProperties(v: unknown): unknown {
  if (Array.isArray(v)) {
    for (const item of v) withoutNullProperties(item);
  } else if (v !== null && typeof v === "object") {
    const o = v as Record<string, unknown>;
    for (const k of Object.keys(o)) {
      const x = o[k];
      if (x === null) delete o[k];
      else if (k !== "value" && typeof x === "object") withoutNullProperties(x);
    }
  }
  return v;
}
