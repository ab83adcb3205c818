import type { ConditionEval, Dampening, Match } from "./model.ts";

/**
 * The dampening of one trigger mode (research §2.4). `step` takes one evaluation of the
 * condition set; once `satisfied`, the owner fires and calls `reset`. Times come from the
 * engine's clock at evaluation, not from data timestamps.
 */
export class DampeningState {
  numTrueEvals = 0;
  numEvals = 0;
  /** Clock time of the first true evaluation of the current run; meaningful while `timing`. */
  trueEvalsStartTime = 0;
  timing = false;
  satisfied = false;
  /** The condition set evaluations of each true step of the current run. */
  satisfyingEvals: ConditionEval[][] = [];

  constructor(readonly def: Dampening) {}

  reset(): void {
    this.numTrueEvals = 0;
    this.numEvals = 0;
    this.trueEvalsStartTime = 0;
    this.timing = false;
    this.satisfied = false;
    this.satisfyingEvals = [];
  }

  /**
   * One evaluation of the condition set. `evals` is called only on true steps, to record the
   * evaluations that make up the alert's evalSets.
   */
  step(trueEval: boolean, now: number, evals: () => ConditionEval[]): void {
    const d = this.def;
    if (this.satisfied) return;
    // RELAXED_TIME: a window that has run out starts over before this evaluation counts
    if (d.type === "RELAXED_TIME" && this.timing && now - this.trueEvalsStartTime > d.evalTimeSetting) this.reset();

    this.numEvals++;
    if (trueEval) {
      this.numTrueEvals++;
      this.satisfyingEvals.push(evals());
      switch (d.type) {
        case "STRICT":
        case "RELAXED_COUNT":
          if (this.numTrueEvals === d.evalTrueSetting) this.satisfied = true;
          break;
        case "RELAXED_TIME":
          if (!this.timing) this.startTiming(now);
          if (this.numTrueEvals === d.evalTrueSetting && now - this.trueEvalsStartTime < d.evalTimeSetting) this.satisfied = true;
          break;
        case "STRICT_TIME":
        case "STRICT_TIMEOUT":
          // the first true evaluation only starts the clock; a later one at or past T satisfies
          if (!this.timing) this.startTiming(now);
          else if (now - this.trueEvalsStartTime >= d.evalTimeSetting) this.satisfied = true;
          break;
      }
      return;
    }
    switch (d.type) {
      case "STRICT":
      case "STRICT_TIME":
      case "STRICT_TIMEOUT":
        this.reset();
        break;
      case "RELAXED_COUNT":
        // give up only when the remaining evaluations can no longer reach N true ones
        if (d.evalTrueSetting - this.numTrueEvals > d.evalTotalSetting - this.numEvals) this.reset();
        break;
      case "RELAXED_TIME":
        break;
    }
  }

  /** STRICT_TIMEOUT only: the time at which the current run satisfies without further data. */
  timeoutAt(): number | undefined {
    if (this.def.type !== "STRICT_TIMEOUT" || !this.timing || this.satisfied) return undefined;
    return this.trueEvalsStartTime + this.def.evalTimeSetting;
  }

  /** STRICT_TIMEOUT only: satisfies the run when its time has come. Returns whether it did. */
  checkTimeout(now: number): boolean {
    const at = this.timeoutAt();
    if (at === undefined || now < at) return false;
    this.satisfied = true;
    return true;
  }

  private startTiming(now: number): void {
    this.timing = true;
    this.trueEvalsStartTime = now;
  }
}

/** The latest evaluation of one condition of a set, as dampening sees it. */
export interface LatestEval {
  hasEval: boolean;
  match: boolean;
}

/**
 * The truth of a condition set from the latest evaluation of each condition, or undefined when
 * ALL still waits for a condition that has never been evaluated.
 */
export function conditionSetResult(match: Match, latest: readonly LatestEval[]): boolean | undefined {
  if (match === "ALL") {
    let all = true;
    for (const e of latest) {
      if (!e.hasEval) return undefined;
      if (!e.match) all = false;
    }
    return all;
  }
  for (const e of latest) if (e.hasEval && e.match) return true;
  return false;
}
