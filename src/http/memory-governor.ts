import { edenGC, fullGC, heapSize } from "bun:jsc";
import { ApiError } from "./errors.ts";

/**
 * Keeps a server's resident memory near a target while it receives request bodies (and MQTT
 * batches, counted at the size of the same points in JSON). Why: every
 * JSON body becomes a string and thousands of objects that are garbage once written, and the
 * JavaScript engine sizes its heap by the machine's RAM (on a 24 GB host it lets garbage reach
 * twice the live heap before collecting), so under sustained ingest the resident size saws far
 * above what is live. Above `targetBytes` a full collection runs, at most once per `spacing`
 * bytes of bodies received; when the live memory itself is above the target, only once the size
 * has grown by a quarter over what the last collection left (so a large live set does not make
 * every request pay a collection: the cost stays proportional to the garbage). Above
 * `limitBytes` (0: none) bodies are refused with a 503 and Retry-After until memory is back
 * under it, after a collection has been tried.
 */
export interface MemoryGovernorOptions {
  /** Resident size above which garbage is collected eagerly; 0 disables collections. */
  targetBytes: number;
  /** Resident size above which request bodies are refused (503); 0 refuses none. */
  limitBytes: number;
  /** Bytes of bodies (and other garbage counted) between two collections at least (default 8 MiB). */
  spacingBytes?: number;
  /**
   * Milliseconds between two collections for the target at least (default 1000; up to 16 times
   * as long after collections that freed little, see MemoryGovernor). A collection
   * gives the engine's garbage to the allocator, which hands unused pages back to the system
   * after its own delay: collecting sooner again cost CPU without lowering the resident size (a
   * query path of 702 series spent a tenth of its time in back-to-back collections).
   */
  minIntervalMs?: number;
  /** After a read that ran no collection, ms before the next (default READ_EVERY_MS). */
  readEveryMs?: number;
  /** While backing off, the check for a doubled heap reads the engine's heap at most this often (default HEAP_READ_EVERY_MS). */
  heapReadEveryMs?: number;
  /**
   * Once `youngSpacingBytes` of input or garbage have been counted, a young collection runs this
   * many ms later, one at a time (default YOUNG_EVERY_MS; 0: none). See `young()`.
   */
  youngEveryMs?: number;
  /** Bytes counted (as for `spacingBytes`) that make a young collection due (default YOUNG_SPACING). */
  youngSpacingBytes?: number;
  /** Runs a young (eden) collection (default: bun:jsc's edenGC). */
  collectYoung?: () => void;
  /** Runs `fn` after `ms` without keeping the process alive (default: an unref'd setTimeout). */
  schedule?: (fn: () => void, ms: number) => void;
  /** The resident size now (default: the process's). */
  rss?: () => number;
  /**
   * Runs a full, synchronous collection (default: the engine's own, bun:jsc's fullGC; Bun.gc(true)
   * also hands the allocator's free pages back to the system, which the next requests then fault
   * in again: issue 28 measured a third more page faults under ingest with it).
   */
  collect?: () => void;
  /**
   * The engine's heap now, its objects and the memory they hold (default: bun:jsc's heapSize). What
   * a collection frees is taken from it: the resident size right after a collection still holds
   * what the allocator hands back only after its delay (issue 28).
   */
  heap?: () => number;
  now?: () => number;
}

// 8 rather than 16 MiB (issue 16): the collection comes sooner after the size crosses the target,
// so the peak overshoots it less; collections stay as many as the garbage needs, as each one
// waits for the size to cross the target again.
const DEFAULT_SPACING = 8 * 1024 * 1024;
/** Growth of the engine's heap over what the last collection left below which answered queries collect nothing. */
const QUERY_SLACK = 64 * 1024 * 1024;
/** Answered queries read the engine's heap at most this often (ms). */
const QUERY_CHECK_MS = 250;
/** Seconds a refused client is told to wait. */
export const MEMORY_RETRY_AFTER_S = 1;
/**
 * After a read that ran no collection, the resident size (and the engine's heap) is read again
 * no sooner than this many ms later, however many bodies come. Why: at 3 M points/s of HTTP JSON
 * an eighth of the spacing came 128 times a second, and the two reads (the heap's walks its
 * blocks) took 7 % of the main thread (issue 28, docs/storage.md thirteenth part); a collection
 * decided 50 ms later lets at most a few more MB of garbage in.
 */
export const READ_EVERY_MS = 50;
/**
 * While collections back off above the target, the engine's heap is read at most this often
 * (ms), the last reading standing in between (a collection that becomes due waits at most this
 * much longer, and one runs at most once per interval anyway). Why: a backlog keeps the resident
 * size above the target, so each read of the resident size read the heap as well, 20 times a
 * second, and the heap's walk of its blocks took 1.7 % of a replayed backlog's CPU (issue 28,
 * docs/storage.md thirty-fourth part).
 */
export const HEAP_READ_EVERY_MS = 250;
/**
 * While input comes, a young collection at most every this many ms, once YOUNG_SPACING bytes
 * were counted (issue 28, docs/storage.md "Young collections"): the garbage of requests, batches
 * and seals dies young, and the engine let it grow to tens of MB before collecting it, in fresh
 * pages each time. A young collection costs about 2–3 ms whatever it frees: so by bytes, not only
 * by time (by time alone, remote write's slow live stream paid 0.2 CPU-s per M samples for it).
 */
export const YOUNG_EVERY_MS = 100;
export const YOUNG_SPACING = 256 * 1024;

export class MemoryGovernor {
  private readonly spacing: number;
  private readonly minInterval: number;
  private since = 0;
  /** `since` at which, and the time after which, the resident size is read again after a read that ran no collection. */
  private nextRead = 0;
  private nextReadAt = Number.NEGATIVE_INFINITY;
  /** Resident size the last collection left. */
  private floor = 0;
  private lastCollect = Number.NEGATIVE_INFINITY;
  /**
   * After a collection that freed less than a quarter of the engine's heap, the next waits
   * twice as long (up to 16 intervals) and for the resident size to pass 1.5 times what the
   * collection left (freed pages not taken off), unless the heap doubles first (heapLeft);
   * after one that freed more, one interval and a quarter over what is left without the
   * garbage, as before. Why: when the resident size grows
   * because what is live grows (the heads of 50,000 remote-write series, issue 28), collections
   * free little and cost 80–140 ms each; garbage makes them pay again.
   */
  private wait: number;
  private growth = 1.25;
  /**
   * The engine's heap the last collection left. While backing off, a collection is due again
   * after one interval once the heap has grown to twice that (and the resident size is above the
   * target): what came since is then at least as much as all that was live, and a collection
   * that frees little has become unlikely to repeat. Why: under HTTP ingest the first
   * collection often falls while the heads fill and frees little; the back-off then let the
   * heap grow from 100 to 330 MB of mostly garbage before the engine collected by itself, and
   * the resident size to 320–440 MB (issue 28, docs/storage.md "The peak under HTTP ingest").
   */
  private heapLeft = 0;
  /** The engine's heap last read by the check for a doubled heap, and when (see HEAP_READ_EVERY_MS). */
  private lastHeap = 0;
  private heapReadAt = Number.NEGATIVE_INFINITY;
  /** When a query was last looked at (queryStarts). */
  private lastQueryCheck = Number.NEGATIVE_INFINITY;
  private readonly rss: () => number;
  private readonly collect: () => void;
  private readonly heap: () => number;
  private readonly now: () => number;
  /** Collections run, young collections run, and bodies refused, since the start (for the collector's own metrics). */
  collections = 0;
  youngCollections = 0;
  refused = 0;
  private youngPending = false;
  /** Bytes counted since the last young collection ran. */
  private youngSince = 0;
  private readonly youngEveryMs: number;
  private readonly youngSpacing: number;
  private readonly collectYoung: () => void;
  private readonly schedule: (fn: () => void, ms: number) => void;

  constructor(private readonly o: MemoryGovernorOptions) {
    this.spacing = o.spacingBytes ?? DEFAULT_SPACING;
    this.minInterval = o.minIntervalMs ?? 1000;
    this.wait = this.minInterval;
    this.rss = o.rss ?? (() => process.memoryUsage.rss());
    this.collect = o.collect ?? (() => fullGC());
    this.heap = o.heap ?? (() => heapSize());
    this.now = o.now ?? Date.now;
    this.youngEveryMs = o.youngEveryMs ?? YOUNG_EVERY_MS;
    // Off (no interval, or --memory-target 0): no count ever makes one due.
    this.youngSpacing = this.youngEveryMs > 0 && o.targetBytes > 0 ? (o.youngSpacingBytes ?? YOUNG_SPACING) : Number.POSITIVE_INFINITY;
    this.collectYoung = o.collectYoung ?? (() => edenGC());
    this.schedule =
      o.schedule ??
      ((fn, ms) => {
        setTimeout(fn, ms).unref();
      });
  }

  get enabled(): boolean {
    return this.o.targetBytes > 0 || this.o.limitBytes > 0;
  }

  /**
   * Called before a body of (about) `bytes` is read: may collect garbage first, and throws a
   * 503 when memory stays above the limit.
   */
  admit(bytes: number): void {
    if (!this.enabled) return;
    const rss = this.collectIfDue(bytes);
    const { limitBytes } = this.o;
    if (limitBytes > 0 && rss > limitBytes) {
      this.refused++;
      throw new ApiError(
        503,
        `The collector's memory (${Math.round(rss / 2 ** 20)} MiB) is above --memory-limit (${Math.round(limitBytes / 2 ** 20)} MiB); retry in ${MEMORY_RETRY_AFTER_S} s`,
        undefined,
        { "Retry-After": String(MEMORY_RETRY_AFTER_S) },
      );
    }
  }

  /**
   * Counts `bytes` of input (or their equivalent in JSON for input that is not JSON) and runs a
   * collection when one is due; returns the resident size then (0 when no decision needed it).
   * Never refuses: for input that cannot be answered with a 503 (MQTT batches).
   */
  collectIfDue(bytes: number): number {
    this.received(bytes);
    const { targetBytes, limitBytes } = this.o;
    // Reading the resident size is a system call (about 0.1 ms, a tenth of a large ingest
    // request's main-thread time): only when a decision needs it. 0 when it was not read.
    // Once past the spacing but under the bar (or within the interval) it was read on every body
    // and every sealed chunk, thousands of times a sealing round (4 % of the main thread under
    // HTTP ingest, issue 28): now again only after an eighth of the spacing more.
    if (limitBytes === 0 && (targetBytes === 0 || this.since < this.spacing || this.since < this.nextRead)) return 0;
    const now = this.now();
    if (limitBytes === 0 && now < this.nextReadAt) return 0;
    let rss = this.rss();
    // Memory freed since (by the runtime's own collections, or data aged out) lowers the bar again.
    if (rss < this.floor) this.floor = rss;
    const overLimit = limitBytes > 0 && rss > limitBytes;
    const collectAbove = Math.max(targetBytes, this.floor * this.growth);
    // Over the limit, a collection is tried before refusing, but at most once a second.
    const sinceLast = now - this.lastCollect;
    const forTarget =
      targetBytes > 0 &&
      this.since >= this.spacing &&
      ((rss > collectAbove && sinceLast >= this.wait) || (this.wait > this.minInterval && rss > targetBytes && sinceLast >= this.minInterval && this.recentHeap(now) >= 2 * this.heapLeft));
    if (forTarget || (overLimit && sinceLast >= 1000)) {
      rss = this.runCollection();
    } else {
      this.nextRead = this.since + this.spacing / 8;
      this.nextReadAt = now + (this.o.readEveryMs ?? READ_EVERY_MS);
    }
    return rss;
  }

  /**
   * Counts `bytes` of garbage made by work other than input (a sealing round's blocks and head
   * arrays) and collects when due. Cheap enough to call per chunk: the resident size is read
   * only once `spacing` bytes have been counted.
   */
  garbage(bytes: number): void {
    this.received(bytes);
    if (this.o.targetBytes > 0 && this.since >= this.spacing) this.collectIfDue(0);
  }

  /**
   * A query starts: the engine's heap now, when answered() is to look at this query (at most
   * one query every QUERY_CHECK_MS), else undefined.
   */
  queryStarts(): number | undefined {
    if (this.o.targetBytes <= 0 || this.now() - this.lastQueryCheck < QUERY_CHECK_MS) return undefined;
    this.lastQueryCheck = this.now();
    return this.heap();
  }

  /**
   * The query that queryStarts() gave `before` for is answered: what it grew the engine's heap
   * by is garbage now (its step values, the worker's results, the answer's chunks). Collects once the heap is twice what the last
   * collection left (QUERY_SLACK more at least) while the resident size is above the target.
   * Why: the engine let garbage reach two to three and a half times what was live before
   * collecting; over the range bench's queries the collector's heap went from 75 to 160–265 MB
   * between collections (issue 28). A collection of that heap costs about 20 ms. Collecting at
   * half again what was left made the range bench's peak about 20 MB lower still (median 307
   * against 330 MB) for 8–10 % more CPU a query. Only one query every QUERY_CHECK_MS is looked
   * at: reading the heap walks the engine's blocks (65 µs at 32 MB, more as it grows), which
   * made each small query 20–40 % dearer when read before and after every query.
   */
  answered(before: number | undefined): void {
    const { targetBytes } = this.o;
    if (targetBytes <= 0 || before === undefined) return;
    // The engine's own collections leave less than the governor's last one did.
    if (before < this.heapLeft) this.heapLeft = before;
    const heap = this.heap();
    this.received(Math.max(0, heap - before));
    if (heap < this.heapLeft + Math.max(QUERY_SLACK, this.heapLeft)) return;
    if (this.rss() <= targetBytes) return;
    this.runCollection();
  }

  /**
   * A collection now, when a large piece of work that leaves only garbage is done (the metrics
   * store's replay of its log at start: the segment files read whole and every body decoded).
   * Why: that garbage had been promoted to the engine's old generation, which the young
   * collections under the ingest that follows never free; a restarted collector held about 40 MB
   * of it under remote write from 50,000 series (issue 28). Nothing when disabled (target 0).
   */
  collectNow(): void {
    // Outside the governor's own rules: neither counted in `collections` (those the target made)
    // nor setting the bar the next ones are measured against.
    if (this.o.targetBytes > 0) this.collect();
  }

  /** Counts a body whose size was known only once read (chunked). */
  received(bytes: number): void {
    this.since += bytes;
    this.youngSince += bytes;
    if (!this.youngPending && this.youngSince >= this.youngSpacing) this.young();
  }

  /**
   * Schedules a young collection `youngEveryMs` from now (once `youngSpacing` bytes were
   * counted): at most one per interval while input comes, none while idle. Why: the engine
   * collects its young generation only once it has grown by an amount it sizes by the machine's
   * memory, so the garbage of requests (bodies' objects, answers, promises) reached tens of MB
   * between its collections, each time in pages the system had to fault in afresh; collected
   * sooner, the same few MB are reused while still mapped and in cache (figures in
   * docs/storage.md, "Young collections"). It runs from a timer, not inside a request, so that
   * the objects of the request in hand are not promoted for having been on the stack.
   */
  private young(): void {
    this.youngPending = true;
    this.schedule(() => {
      // What came meanwhile is collected with the rest.
      this.youngSince = 0;
      this.youngPending = false;
      this.collectYoung();
      this.youngCollections++;
    }, this.youngEveryMs);
  }

  /** The engine's heap, read again only HEAP_READ_EVERY_MS after the last reading (see there). */
  private recentHeap(now: number): number {
    // A clock set back does not keep the reading standing.
    if (now < this.heapReadAt || now - this.heapReadAt >= (this.o.heapReadEveryMs ?? HEAP_READ_EVERY_MS)) {
      this.lastHeap = this.heap();
      this.heapReadAt = now;
    }
    return this.lastHeap;
  }

  private runCollection(): number {
    const before = this.heap();
    this.collect();
    this.heapLeft = this.heap();
    // A reading from before the collection no longer stands.
    this.heapReadAt = Number.NEGATIVE_INFINITY;
    const freed = Math.max(0, before - this.heapLeft);
    const little = freed * 4 < before;
    this.wait = little ? Math.min(this.wait * 2, this.minInterval * 16) : this.minInterval;
    this.growth = little ? 1.5 : 1.25;
    this.collections++;
    this.since = 0;
    this.nextRead = 0;
    this.nextReadAt = Number.NEGATIVE_INFINITY;
    this.lastCollect = this.now();
    const rss = this.rss();
    // What is left once the allocator has handed back what was freed: read from the resident
    // size alone, the bar rose with every collection (freed pages still counted) until the
    // governor stopped collecting at all, and MQTT ingest's peak grew by half (issue 28).
    this.floor = little ? rss : Math.max(0, rss - freed);
    return rss;
  }
}
