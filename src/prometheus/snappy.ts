/**
 * Snappy block decompression for remote-write bodies: the native napi-rs build of `snappy` when
 * it loads (the release embeds the one of its target: OUTPOST_SNAPPY_ADDON, set by
 * deploy/release/binaries.ts), else the pure-JavaScript `snappyjs`, chosen at run time so that a
 * machine the addon cannot load on (another libc, no libgcc_s, a platform without a build) still
 * takes remote writes. The measurements behind the order: docs/prometheus.md, "Snappy".
 */
/** The path of the target's addon, baked in by the release build (undefined from source). */
declare const OUTPOST_SNAPPY_ADDON: string | undefined;

type Uncompress = (body: Buffer) => Uint8Array;

export interface SnappyDecoder {
  kind: "native" | "javascript";
  uncompress: Uncompress;
  /** Why the native decoder is not used, when it is not. */
  whyNotNative?: string;
}

/** The native decoder, or what kept it from loading. */
function loadNative(): Uncompress | Error {
  try {
    // A constant in a release build, so that the bundle holds only its target's addon (Bun's
    // bundler embeds a file required by a literal path; createRequire would hide it).
    const m = (typeof OUTPOST_SNAPPY_ADDON === "string" ? require(OUTPOST_SNAPPY_ADDON) : require("snappy")) as { uncompressSync(b: Buffer): Buffer };
    return (b) => m.uncompressSync(b);
  } catch (e) {
    return e instanceof Error ? e : new Error(String(e));
  }
}

function javascriptDecoder(): Uncompress {
  const js = require("snappyjs") as { uncompress(b: Uint8Array): Uint8Array };
  return (b) => js.uncompress(new Uint8Array(b.buffer, b.byteOffset, b.byteLength));
}

/** Chooses between the two: `native` is the loader (replaceable by tests). */
export function chooseSnappyDecoder(native: () => Uncompress | Error = loadNative): SnappyDecoder {
  const n = native();
  if (typeof n === "function") return { kind: "native", uncompress: n };
  return { kind: "javascript", uncompress: javascriptDecoder(), whyNotNative: n.message.split("\n")[0] };
}

let chosen: SnappyDecoder | undefined;

/** The decoder of this process, chosen on first use. */
export function snappyDecoder(): SnappyDecoder {
  chosen ??= chooseSnappyDecoder();
  return chosen;
}
