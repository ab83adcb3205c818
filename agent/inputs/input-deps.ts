/**
 * What every input is given, and the gate of the inputs that programs push to over the agent's
 * local API (OTLP, Influx): one rule for a disabled input and a request for another tenant.
 */
import type { Context } from "hono";
import { readBodyBytes } from "../../src/http/body-limit.ts";
import { ApiError } from "../../src/http/errors.ts";
import { tenantHeader } from "../../src/http/service.ts";
import type { Logger } from "../../src/log/logger.ts";
import type { InputCounters } from "./input-telemetry.ts";
import type { SeriesOutput } from "./series-output.ts";

export interface InputDeps {
  output: SeriesOutput;
  counters: InputCounters;
  warn(key: string, message: string, fields: Record<string, unknown>): void;
  log: Logger;
  now?: () => number;
}

/** An input that programs push to over the agent's local API. */
export interface PushInputDeps extends InputDeps {
  tenant: string;
  enabled(): boolean;
}

/**
 * The body of a push, counted in the input's bytes; refused while the input is disabled (404,
 * naming its section) or when the request names another tenant than the agent's (403).
 */
export async function acceptedPushBody(c: Context, d: PushInputDeps, input: { name: string; section: string }): Promise<Uint8Array> {
  if (!d.enabled()) throw new ApiError(404, `the ${input.name} input is disabled ([${input.section}] enabled = false)`);
  const t = tenantHeader(c);
  if (t !== undefined && t !== d.tenant) throw new ApiError(403, `This agent forwards data of tenant '${d.tenant}' only, not '${t}'`);
  const body = await readBodyBytes(c);
  d.counters.bytes.inc(body.byteLength);
  return body;
}
