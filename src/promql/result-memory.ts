/**
 * A range query's result gives its arrays back to the allocator as soon as its answer is sent,
 * instead of at the engine's next full collection (issue 28). Each `rate` answer of the range
 * bench left 13 MB of step values (its own and the PromQL worker's), and the main thread's heap
 * grew by that much a query until the memory governor collected: about 100 MB of garbage at the
 * resident peak. Detached, the memory is reused by the next query's arrays.
 */
import { releaseBuffer } from "../runtime/release-buffer.ts";
import type { QueryResult } from "./query.ts";

/**
 * Detaches every array of a range query's matrix. Only for a result the caller made for itself
 * and no one else holds (rangeQuery's: its step times and values are that query's own); every
 * array of it reads as empty afterwards.
 */
export function releaseRangeResult(r: QueryResult): void {
  if (r.resultType !== "matrix") return;
  for (const s of r.result) {
    releaseBuffer(s.vals, 0);
    releaseBuffer(s.ts, 0);
  }
}
