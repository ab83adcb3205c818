/**
 * Frees a large buffer's memory at once instead of when the garbage collector finds its
 * wrapper dead. JavaScriptCore collects young objects often but old ones rarely, and a buffer of
 * a megabyte or more is nearly always old by the time it is dropped: allocating it is what
 * triggers the young collection, while it is still in use, which then promotes it. A scraping
 * agent passes several such buffers a scrape (the encoded chunk, the rows read back, the batch,
 * the MQTT packet), and each one stayed resident until the next full collection, a minute or
 * more later (docs/inputs.md, "Memory"). Detaching the ArrayBuffer (`transfer(0)`) hands its
 * memory back to the allocator now; the empty wrapper is left for the collector.
 *
 * Only for a buffer its caller owns alone, whole: every view of it reads as empty afterwards.
 */

/** Below this, a buffer is left to the collector (detaching costs an allocation too). */
export const RELEASE_MIN_BYTES = 64 * 1024;

interface Detachable {
  readonly detached?: boolean;
  transfer?(length: number): ArrayBuffer;
}

/**
 * Detaches the ArrayBuffer under `bytes` when it is large (`minBytes`) and not shared; never
 * throws. Smaller buffers made at a high rate gain too (the collector's sealed chunks, about
 * 14 KB, a thousand a second under ingest: fewer page faults, measured in docs/storage.md).
 */
export function releaseBuffer(bytes: ArrayBufferView, minBytes = RELEASE_MIN_BYTES): void {
  const b = bytes.buffer;
  if (!(b instanceof ArrayBuffer) || b.byteLength < minBytes) return;
  const d = b as ArrayBuffer & Detachable;
  if (d.detached || typeof d.transfer !== "function") return;
  try {
    d.transfer(0);
  } catch {
    // Not detachable (e.g. owned by the runtime): the collector frees it later, as before.
  }
}
