// cbor-x's native helper corrupts decoding under Bun (see research/toolchain.md §4); the env
// switch must be set before cbor-x is first evaluated, hence the side-effect import.
import "./cbor-env.ts";

// The subpath entries: cbor-x's main Node entry also loads its stream classes (node:stream)
// and the native-addon loader, about 6 MB of memory the agent does not need.
export { Decoder, decode } from "cbor-x/decode";
export { Encoder, encode } from "cbor-x/encode";
