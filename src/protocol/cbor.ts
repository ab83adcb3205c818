/** The only way into cbor-x: ./cbor-env.ts runs first and turns native acceleration off under Bun. */
import "./cbor-env.ts";
import { Decoder, Encoder } from "cbor-x";

export { isNativeAccelerationEnabled } from "cbor-x";

/**
 * Records make arrays of same-shaped objects (points) about 40 % smaller and much faster to
 * decode; without a shared `structures` table each message carries its own definitions, so
 * every message decodes on its own.
 */
export function createEncoder(): Encoder {
  return new Encoder({ useRecords: true });
}

export function createDecoder(): Decoder {
  return new Decoder({ useRecords: true });
}
