import type { SQL } from "bun";
import { partitionOf } from "../../../../src/partitions.ts";
import { DEFAULT_PARTITIONS } from "../../../../src/postgres/leases.ts";

/**
 * The work partition of a tenant's series and blocks: the lease partition of the tenant
 * (src/partitions.ts), so that the collector holding a partition's lease seals and expires
 * exactly its series, and finds them through an index rather than by scanning every block.
 */
export const METRIC_PARTITIONS = DEFAULT_PARTITIONS;

export function seriesPartition(tenant: string): number {
  return partitionOf(tenant, METRIC_PARTITIONS);
}

/**
 * Schema version 3: `part` on metric_series and metric_blocks, filled for the rows there (the
 * partitions computed here, from each tenant), and the blocks' primary key led by it, so that a
 * partition's blocks are one index range: (part, sid, bid), carrying n and written for the seal's
 * search. Blocks hold at most about an hour of writes: rewriting them is short.
 */
export async function partitionStep(tx: SQL): Promise<void> {
  await tx.unsafe("ALTER TABLE metric_series ADD COLUMN part SMALLINT");
  const tenants = (await tx.unsafe("SELECT DISTINCT tenant FROM metric_series")) as { tenant: string }[];
  if (tenants.length > 0) {
    await tx.unsafe("UPDATE metric_series s SET part = u.part FROM unnest($1::text[], $2::int[]) AS u(tenant, part) WHERE s.tenant = u.tenant", [
      `{${tenants.map((t) => `"${t.tenant.replace(/[\\"]/g, "\\$&")}"`).join(",")}}`,
      `{${tenants.map((t) => seriesPartition(t.tenant)).join(",")}}`,
    ]);
  }
  await tx.unsafe("ALTER TABLE metric_series ALTER COLUMN part SET NOT NULL");
  await tx.unsafe("CREATE INDEX metric_series_by_part ON metric_series (part)");
  await tx.unsafe("ALTER TABLE metric_blocks ADD COLUMN part SMALLINT");
  // Blocks whose series is gone (a write racing its deletion) take partition 0: its holder drops them.
  await tx.unsafe("UPDATE metric_blocks b SET part = coalesce((SELECT s.part FROM metric_series s WHERE s.sid = b.sid), 0)");
  await tx.unsafe("ALTER TABLE metric_blocks ALTER COLUMN part SET NOT NULL");
  await tx.unsafe("ALTER TABLE metric_blocks DROP CONSTRAINT metric_blocks_pkey");
  await tx.unsafe("ALTER TABLE metric_blocks ADD PRIMARY KEY (part, sid, bid) INCLUDE (n, written)");
}
