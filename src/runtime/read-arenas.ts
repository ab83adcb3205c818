/**
 * Where a query's samples are read to (ReadBuffers: a PromQL query's, a Hawkular stats read's):
 * an arena per query, taken from a few kept from query to query. Why: every series read had a
 * buffer of its own, allocated, zeroed and garbage once the query was answered; Grafana's small
 * queries made hundreds of MB of them a second (a histogram_quantile over 702 bucket series: 702
 * buffers a query), and the engine let them pile up to 100–170 MB before collecting (issue 28,
 * docs/prometheus.md sixteenth part).
 */
import { FloatArena } from "./float-arena.ts";

/** Arenas kept between queries: a dashboard's queries come a few at a time, and each holds one while it runs. */
const KEPT = 4;
/** A new arena's slab (numbers): a small query's series fit, larger ones grow it (to 4 MiB at most). */
const INITIAL = 32 * 1024;

const free: FloatArena[] = [];

/** An arena for one query's reads (read-only views of it must not outlive release()). */
export function acquireReadArena(): FloatArena {
  return free.pop() ?? new FloatArena(false, INITIAL);
}

/** The query is evaluated: nothing reads its samples any more, the arena may serve the next one. */
export function releaseReadArena(a: FloatArena): void {
  a.reset();
  if (free.length < KEPT) free.push(a);
}

/** `f` with an arena for its reads, released once it is done: what it returns must hold no view of the arena. */
export async function withReadArena<T>(f: (arena: FloatArena) => Promise<T>): Promise<T> {
  const arena = acquireReadArena();
  try {
    return await f(arena);
  } finally {
    releaseReadArena(arena);
  }
}

/** Arenas waiting for a query (for tests). */
export function keptReadArenas(): number {
  return free.length;
}
