/**
 * Stored data that fails its integrity check (a chunk whose checksum does not match). Reads
 * touching it are refused with this error rather than answered with wrong points; HTTP maps it
 * to 503 with the message as errorMsg. The message names what is damaged, never the bytes.
 */
export class CorruptDataError extends Error {
  override readonly name = "CorruptDataError";
}
