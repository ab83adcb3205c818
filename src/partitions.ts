/**
 * Which partition of work a tenant (or a tenant's feed) belongs to, the same on every collector:
 * FNV-1a over the key's UTF-8 bytes, modulo the number of partitions. Several collectors on one
 * database divide the partitions between them (src/postgres/leases.ts), so a key always lands
 * with the one collector that holds its partition's lease.
 */
export function partitionOf(key: string, partitions: number): number {
  let h = 0x811c9dc5;
  for (const b of new TextEncoder().encode(key)) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h % partitions;
}

/** The right to do one partition's work, and the fencing token that proves it to the database. */
export interface Lease {
  partition: number;
  /** Incremented at every change of owner: work stamped with an older generation is refused. */
  generation: number;
}

/** The same partition at the same generation. */
export function sameLease(a: Lease | undefined, b: Lease | undefined): boolean {
  return a !== undefined && b !== undefined && a.partition === b.partition && a.generation === b.generation;
}

/** Who does the work of a key here: the lease that makes this collector its owner, or none. */
export interface Ownership {
  owns(key: string): Lease | undefined;
}

/** A collector alone (SQLite, no --database-url): it owns every key, for ever. */
export const SOLE_OWNER: Ownership = { owns: () => ({ partition: 0, generation: 1 }) };

/** The partitions whose lease a collector holds now (a LeaseKeeper), for work done per partition. */
export interface HeldPartitions {
  /** How many partitions the work is divided into. */
  readonly partitions: number;
  leases(): Lease[];
}
