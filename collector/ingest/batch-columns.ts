import { ChunkColumnsReader, DataColumns, type TypeColumns } from "../../src/protocol/chunk-columns.ts";
import type { ColumnType, WriteColumns } from "../../src/metrics/write-columns.ts";
import { type WriteDeps, writeColumns } from "../metrics/write-points.ts";

/**
 * MQTT data batches read into reused columns (src/protocol/chunk-columns.ts) instead of objects:
 * one set of columns per batch being stored (as many as agents have batches in flight), given
 * back once the batch is committed. Bounded: columns given back beyond `maxSpare` sets, or grown
 * past `maxSpareBytes` by one huge batch, are left to the garbage collector.
 */
export class BatchColumns {
  readonly reader = new ChunkColumnsReader();
  private readonly spare: DataColumns[] = [];

  constructor(
    private readonly maxSpare = 64,
    private readonly maxSpareBytes = 4 * 1024 * 1024,
  ) {}

  take(): DataColumns {
    return this.spare.pop() ?? new DataColumns();
  }

  give(c: DataColumns): void {
    if (this.spare.length < this.maxSpare && c.bytes <= this.maxSpareBytes) this.spare.push(c);
  }
}

function view(type: ColumnType, c: TypeColumns): WriteColumns {
  return { type, ids: c.ids, counts: c.counts.subarray(0, c.entries), ts: c.ts.subarray(0, c.points), values: c.values.subarray(0, c.points), tags: [] };
}

/**
 * Stores a batch's columns (gauges and counters, queued together: one group commit), then tells
 * the points bus; resolves after the commit. The columns are marked released when it settles, so
 * a listener that kept them fails loudly instead of reading the next batch's points.
 */
export async function writeBatchColumns(deps: WriteDeps, tenant: string, c: DataColumns, origin: string): Promise<void> {
  const parts: WriteColumns[] = [];
  if (c.gauge.points > 0) parts.push(view("gauge", c.gauge));
  if (c.counter.points > 0) parts.push(view("counter", c.counter));
  // Settled both before the columns go back, even when one write fails.
  const results = await Promise.allSettled(parts.map((p) => writeColumns(deps, tenant, p, origin)));
  for (const p of parts) p.released = true;
  for (const r of results) if (r.status === "rejected") throw r.reason;
}
