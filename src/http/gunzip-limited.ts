/**
 * Inflates a gzip body held to a limit once inflated (a small gzip can inflate to gigabytes).
 * Each caller words the two failures in its own protocol's error form.
 */
import { gunzipSync } from "node:zlib";

export class GunzipError extends Error {
  constructor(
    /** too-large: it inflates past the limit; invalid: it is not gzip. */
    readonly kind: "too-large" | "invalid",
    message: string,
  ) {
    super(message);
  }
}

/** `maxBytes` not finite or 0: no limit. */
export function gunzipLimited(bytes: Uint8Array, maxBytes: number): Uint8Array {
  try {
    return gunzipSync(bytes, Number.isFinite(maxBytes) && maxBytes > 0 ? { maxOutputLength: maxBytes } : {});
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE") throw new GunzipError("too-large", `inflates to more than ${maxBytes} bytes`);
    throw new GunzipError("invalid", (e as Error).message);
  }
}
