/**
 * A point block that cannot be decoded: corrupted (checksum or length mismatch), truncated,
 * of an unknown version, or inconsistent. Decoding never returns points from such a block.
 */
export class PointCodecError extends Error {
  override readonly name = "PointCodecError";
}

export function corrupt(what: string): never {
  throw new PointCodecError(`corrupt point block: ${what}`);
}
