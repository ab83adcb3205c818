// cbor-x's native helper corrupts decoding under Bun (see research/toolchain.md §4); the env
// switch must be set before cbor-x is first evaluated, hence the side-effect import.
import "./cbor-env.ts";

// The subpath entries: cbor-x's main Node entry also loads its stream classes (node:stream)
// and the native-addon loader, about 6 MB of memory the agent does not need.
import { decode as decodeCbor } from "cbor-x/decode";

export { Decoder, decode } from "cbor-x/decode";
export { Encoder, encode } from "cbor-x/encode";

const TINY = new Uint8Array([0xf6]); // null

/**
 * Lets go of the last input the decoder read: cbor-x keeps a DataView of it in a module variable
 * until the next decode, and with it the whole buffer the input was a view of. After the metrics
 * store's replay that was the whole segment file read at start (40 MB under remote write from
 * 50,000 series, issue 28), for as long as the collector decoded no other CBOR.
 */
export function releaseDecoderInput(): void {
  decodeCbor(TINY);
}
