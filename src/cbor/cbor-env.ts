if (process.versions.bun) process.env.CBOR_NATIVE_ACCELERATION_DISABLED ??= "true";
