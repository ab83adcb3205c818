/**
 * Timers the engine needs (STRICT_TIMEOUT dampening, MISSING conditions) go through this
 * interface, so tests and the agent can drive time themselves.
 */
export interface Scheduler {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The process's timers. Unreferenced: pending engine timers never keep a process alive. */
export const systemScheduler: Scheduler = {
  setTimeout(fn, ms) {
    const t = setTimeout(fn, Math.max(0, ms));
    (t as { unref?: () => void }).unref?.();
    return t;
  },
  clearTimeout(handle) {
    clearTimeout(handle as ReturnType<typeof setTimeout>);
  },
};

interface ManualTimer {
  id: number;
  at: number;
  fn: () => void;
}

export interface ManualClock {
  now(): number;
  readonly scheduler: Scheduler;
  /** Moves time forward by `ms`, running every timer that comes due, in time order, at its own time. */
  advance(ms: number): void;
  advanceTo(time: number): void;
  /** Number of timers waiting. */
  pending(): number;
}

/** A clock and scheduler that move only when told: deterministic tests and replays. */
export function createManualClock(start = 0): ManualClock {
  let now = start;
  let seq = 0;
  const timers = new Map<number, ManualTimer>();
  const scheduler: Scheduler = {
    setTimeout(fn, ms) {
      const id = ++seq;
      timers.set(id, { id, at: now + Math.max(0, ms), fn });
      return id;
    },
    clearTimeout(handle) {
      timers.delete(handle as number);
    },
  };
  const advanceTo = (time: number) => {
    for (;;) {
      let next: ManualTimer | undefined;
      for (const t of timers.values()) if (t.at <= time && (!next || t.at < next.at || (t.at === next.at && t.id < next.id))) next = t;
      if (!next) break;
      timers.delete(next.id);
      now = Math.max(now, next.at);
      next.fn();
    }
    now = Math.max(now, time);
  };
  return {
    now: () => now,
    scheduler,
    advance: (ms) => advanceTo(now + ms),
    advanceTo,
    pending: () => timers.size,
  };
}
