import type { TriggerMode } from "../model.ts";
import type { Scheduler } from "../scheduler.ts";
import type { ConditionRt, TriggerRt } from "./runtime.ts";

/**
 * The engine's timers: MISSING conditions (due `interval` after the last arrival) and
 * STRICT_TIMEOUT dampenings (due when the dampening says). Arming is idempotent; what a timer
 * does when it fires is the engine's (`onMissing`, `onTimeout`, run through its serialiser).
 */
export class EngineTimers {
  constructor(
    private readonly scheduler: Scheduler,
    private readonly onMissing: (c: ConditionRt) => void,
    private readonly onTimeout: (t: TriggerRt, mode: TriggerMode) => void,
  ) {}

  armMissing(t: TriggerRt, mode: TriggerMode, now: number): void {
    for (const c of t.conditions[mode]) if (c.def.type === "MISSING") this.armMissingOne(c, now);
  }

  armMissingOne(c: ConditionRt, now: number): void {
    if (c.timer !== undefined || c.def.type !== "MISSING") return;
    const due = c.lastArrival + c.def.interval;
    c.timer = this.scheduler.setTimeout(() => this.onMissing(c), due - now);
  }

  armTimeout(t: TriggerRt, mode: TriggerMode, now: number): void {
    if (t.timeoutTimers[mode] !== undefined) return;
    const at = t.dampenings[mode].timeoutAt();
    if (at === undefined) return;
    t.timeoutTimers[mode] = this.scheduler.setTimeout(() => this.onTimeout(t, mode), at - now);
  }

  cancel(t: TriggerRt): void {
    for (const c of t.allConditions()) {
      if (c.timer !== undefined) this.scheduler.clearTimeout(c.timer);
      c.timer = undefined;
    }
    for (const m of ["FIRING", "AUTORESOLVE"] as const) {
      if (t.timeoutTimers[m] !== undefined) this.scheduler.clearTimeout(t.timeoutTimers[m]);
      t.timeoutTimers[m] = undefined;
    }
  }
}
