// cbor-x's native helper corrupts decoding under Bun (see research/toolchain.md §4); the env
// switch must be set before cbor-x is first evaluated, hence the side-effect import.
import "./cbor-env.ts";

export { Decoder, decode, Encoder, encode } from "cbor-x";
