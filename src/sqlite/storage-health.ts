import type { Database } from "bun:sqlite";
import type { Logger } from "../log/logger.ts";
import type { Counter, Telemetry } from "../telemetry/registry.ts";
import { type StorageFailureKind, storageFailure } from "./storage-failure.ts";

/** A store on another engine (PostgreSQL): its probe writes one row, and rejects while it cannot. */
export interface ProbeTarget {
  probe(): Promise<void>;
}

export interface StorageHealthOptions {
  log: Logger;
  /** How often, while writes fail, a one-row probe write tests whether storage works again. */
  probeIntervalMs?: number;
  /** Called once when writes start failing (the agent releases its space reserve here). */
  onFailing?: (kind: StorageFailureKind) => void;
  /** Called before each probe; false skips the probe (the agent restores its reserve first). */
  beforeProbe?: () => boolean;
  now?: () => number;
}

/**
 * The state of a program's storage as its writes see it. Stores report failed writes; the
 * first storage failure (disk full, I/O error, an unreachable PostgreSQL) turns the condition on
 * and is logged once; a probe then writes one row into every registered database (and through
 * every registered target, for PostgreSQL stores) each `probeIntervalMs`, and the
 * first probe that succeeds everywhere turns it off (logged once, with how long it lasted and
 * how many writes were refused). No restart is needed: writes are attempted as they come, and
 * succeed as soon as there is room again.
 */
export class StorageHealth {
  private readonly dbs = new Map<string, Database>();
  private readonly targets = new Map<string, ProbeTarget>();
  private probing = false;
  private kind: StorageFailureKind | undefined;
  private since = 0;
  private refusedNow = 0;
  private refusedTotal = 0;
  private refusedCounter: Counter | undefined;
  private timer: ReturnType<typeof setInterval> | undefined;
  private readonly now: () => number;
  private readonly recoveredListeners = new Set<() => void>();

  constructor(private readonly o: StorageHealthOptions) {
    this.now = o.now ?? Date.now;
  }

  /** Adds a database to the probe (and its one-row probe table to the database). */
  register(name: string, db: Database): void {
    db.exec("CREATE TABLE IF NOT EXISTS storage_probe (id INTEGER PRIMARY KEY, at INTEGER NOT NULL)");
    this.dbs.set(name, db);
  }

  /** Adds a store whose probe is its own (a PostgreSQL store). */
  registerTarget(name: string, target: ProbeTarget): void {
    this.targets.set(name, target);
  }

  unregister(name: string): void {
    this.dbs.delete(name);
    this.targets.delete(name);
  }

  /**
   * Reports a failed write. Returns the kind when it was a storage failure (the condition is
   * then on), undefined for any other error (a bug or bad input: not the storage's business).
   */
  report(e: unknown, store: string): StorageFailureKind | undefined {
    const kind = storageFailure(e);
    if (kind === undefined) return undefined;
    this.refusedNow++;
    this.refusedTotal++;
    this.refusedCounter?.inc();
    if (this.kind !== undefined) return kind;
    this.kind = kind;
    this.since = this.now();
    this.o.log.error(FAILING_MESSAGES[kind], {
      store,
      err: (e as Error).message,
    });
    this.o.onFailing?.(kind);
    this.timer = setInterval(() => void this.probe(), this.o.probeIntervalMs ?? 1000);
    this.timer.unref?.();
    return kind;
  }

  /** Calls `fn` each time the condition ends (ingest asks agents to resend what was refused). */
  onRecovered(fn: () => void): () => void {
    this.recoveredListeners.add(fn);
    return () => this.recoveredListeners.delete(fn);
  }

  /** The current condition: undefined while writes work. */
  get failing(): StorageFailureKind | undefined {
    return this.kind;
  }

  /** Writes refused for a storage failure since the program started. */
  get refusedWrites(): number {
    return this.refusedTotal;
  }

  /** Tests whether every database takes a write again; ends the condition when they all do. */
  async probe(): Promise<boolean> {
    if (this.kind === undefined) return true;
    // A slow probe (a PostgreSQL server not answering) must not pile up behind the timer.
    if (this.probing) return false;
    this.probing = true;
    try {
      return await this.probeAll();
    } finally {
      this.probing = false;
    }
  }

  private async probeAll(): Promise<boolean> {
    if (this.o.beforeProbe && !this.o.beforeProbe()) return false;
    for (const target of this.targets.values()) {
      try {
        await target.probe();
      } catch (e) {
        if (storageFailure(e) === undefined) this.o.log.warn("storage probe failed", { err: (e as Error).message });
        return false;
      }
    }
    for (const db of this.dbs.values()) {
      // A transaction open on this connection would swallow the probe: test it next time.
      if (db.inTransaction) return false;
      try {
        db.query("INSERT OR REPLACE INTO storage_probe (id, at) VALUES (1, ?)").run(this.now());
      } catch (e) {
        if (storageFailure(e) === undefined) this.o.log.warn("storage probe failed", { err: (e as Error).message });
        return false;
      }
    }
    this.o.log.info("storage takes writes again", { afterMs: this.now() - this.since, refusedWrites: this.refusedNow });
    this.kind = undefined;
    this.refusedNow = 0;
    clearInterval(this.timer);
    this.timer = undefined;
    for (const fn of this.recoveredListeners) {
      try {
        fn();
      } catch (e) {
        this.o.log.error("storage recovery listener failed", { err: String(e) });
      }
    }
    return true;
  }

  /** Self-metrics: `<prefix>_storage_full`, `<prefix>_storage_failing`, `<prefix>_storage_refused_writes_total`. */
  instrument(t: Telemetry, prefix: string): void {
    t.gauge(`${prefix}_storage_full`, "1 while writes are refused because the disk (or database) is full", () => (this.kind === "full" ? 1 : 0));
    t.gauge(`${prefix}_storage_failing`, "1 while writes are refused for a storage failure (full disk or I/O error)", () => (this.kind === undefined ? 0 : 1));
    this.refusedCounter = t.counter(`${prefix}_storage_refused_writes_total`, "writes refused because of a storage failure (full disk or I/O error)");
  }

  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}

const FAILING_MESSAGES: Record<StorageFailureKind, string> = {
  full: "storage is full: writes are refused until space is freed; reads go on",
  io: "storage I/O error: writes are refused until it passes; reads go on",
  unavailable: "the database cannot be reached: writes are refused until it answers again",
};

/** Runs a write, telling `health` (when there is one) of a failure before rethrowing it. */
export function reportingFailures<T>(health: StorageHealth | undefined, store: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    health?.report(e, store);
    throw e;
  }
}

/** Like reportingFailures, for an async write (a PostgreSQL store). */
export async function reportingFailuresAsync<T>(health: StorageHealth | undefined, store: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    health?.report(e, store);
    throw e;
  }
}
