/**
 * Must be evaluated before cbor-x: under Bun the native cbor-extract addon corrupts decoding
 * (research/toolchain.md §4), so the pure-JS path is forced. Node keeps native acceleration.
 */
if (process.versions.bun) process.env.CBOR_NATIVE_ACCELERATION_DISABLED ??= "true";
