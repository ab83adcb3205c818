/** Encoder and decoder settings of agent↔collector messages (through the Bun-safe cbor wrapper). */
import { Decoder, Encoder } from "../cbor/cbor.ts";

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
