/**
 * What every agent↔collector message shares (docs/protocol.md): the version, the error type,
 * CBOR decoding and the checks of small fields. No zod here: the agent decodes its acks with
 * these alone, and loading zod would cost it about 7 MB of memory.
 */
import type { Decoder } from "cbor-x";

export const PROTOCOL_VERSION = 1;

export interface BatchRef {
  session: number;
  seq: number;
}

/** A message that cannot be used. `batch` is set when the batch is identifiable, so it can be refused by ack. */
export class ProtocolError extends Error {
  constructor(
    message: string,
    readonly batch?: BatchRef,
  ) {
    super(message);
  }
}

export function decodeCbor(dec: Decoder, payload: Uint8Array, what: string): unknown {
  if (payload.length === 0) throw new ProtocolError(`empty ${what}`);
  try {
    return dec.decode(payload);
  } catch (e) {
    throw new ProtocolError(`${what} is not valid CBOR: ${(e as Error).message}`);
  }
}

/** Checks `v` before anything else; returns it. Data batches accept versions 1, 2 and 3. */
export function versionCheck(value: unknown, kind: string, accepted: readonly number[] = [PROTOCOL_VERSION]): number {
  if (value === null || typeof value !== "object") throw new ProtocolError(`${kind} message is not a map`);
  const v = (value as { v?: unknown }).v;
  if (typeof v === "number" && accepted.includes(v)) return v;
  throw new ProtocolError(`unsupported ${kind} message version ${JSON.stringify(v)}`);
}

export const isSafeInt = (v: unknown, min: number): v is number => typeof v === "number" && Number.isSafeInteger(v) && v >= min;
/** Batch numbers start at 1, sessions at 0; times are integer ms. */
export const isSeq = (v: unknown): v is number => isSafeInt(v, 1);
export const isSession = (v: unknown): v is number => isSafeInt(v, 0);
export const isMs = (v: unknown): v is number => isSafeInt(v, Number.MIN_SAFE_INTEGER);

/** Reads a decoded map's fields, collecting what is wrong as "field: problem" for the error. */
export function fieldChecker(raw: unknown) {
  const map = raw as Record<string, unknown>;
  const problems: string[] = [];
  return {
    map,
    problems,
    check(name: string, ok: boolean, problem: string) {
      if (!ok) problems.push(`${name}: ${problem}`);
    },
  };
}
