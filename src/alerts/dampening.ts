import type { ConditionEval, Dampening, DampeningType, Match } from "./model.ts";

const STRICT = 0;
const RELAXED_COUNT = 1;
const RELAXED_TIME = 2;
const STRICT_TIME = 3;
const STRICT_TIMEOUT = 4;
const KINDS: Record<DampeningType, number> = { STRICT, RELAXED_COUNT, RELAXED_TIME, STRICT_TIME, STRICT_TIMEOUT };

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

  // the settings, copied out of the definition so the hot path reads one object shape
  private readonly kind: number;
  private readonly trueSetting: number;
  private readonly totalSetting: number;
  private readonly timeSetting: number;

  constructor(readonly def: Dampening) {
    this.kind = KINDS[def.type];
    this.trueSetting = def.evalTrueSetting;
    this.totalSetting = def.evalTotalSetting;
    this.timeSetting = def.evalTimeSetting;
  }

  reset(): void {
    this.numTrueEvals = 0;
    this.numEvals = 0;
    this.trueEvalsStartTime = 0;
    this.timing = false;
    this.satisfied = false;
    // a fresh array, not a cleared one: a fired alert holds the old one as its evalSets
    if (this.satisfyingEvals.length > 0) this.satisfyingEvals = [];
  }

  /**
   * One evaluation of the condition set. `evals` is called only on true steps, to record the
   * evaluations that make up the alert's evalSets.
   */
  step(trueEval: boolean, now: number, evals: () => ConditionEval[]): void {
    if (this.satisfied) return;
    const kind = this.kind;
    // RELAXED_TIME: a window that has run out starts over before this evaluation counts
    if (kind === RELAXED_TIME && this.timing && now - this.trueEvalsStartTime > this.timeSetting) this.reset();

    this.numEvals++;
    if (trueEval) {
      this.numTrueEvals++;
      this.satisfyingEvals.push(evals());
      if (kind === STRICT || kind === RELAXED_COUNT) {
        if (this.numTrueEvals === this.trueSetting) this.satisfied = true;
      } else if (kind === RELAXED_TIME) {
        if (!this.timing) this.startTiming(now);
        if (this.numTrueEvals === this.trueSetting && now - this.trueEvalsStartTime < this.timeSetting) this.satisfied = true;
      } else if (!this.timing) {
        // STRICT_TIME, STRICT_TIMEOUT: the first true evaluation only starts the clock;
        // a later one at or past T satisfies
        this.startTiming(now);
      } else if (now - this.trueEvalsStartTime >= this.timeSetting) this.satisfied = true;
      return;
    }
    if (kind === RELAXED_COUNT) {
      // give up only when the remaining evaluations can no longer reach N true ones
      if (this.trueSetting - this.numTrueEvals > this.totalSetting - this.numEvals) this.reset();
    } else if (kind !== RELAXED_TIME) {
      // STRICT, STRICT_TIME, STRICT_TIMEOUT: any false evaluation starts over
      this.reset();
    }
  }

  /** STRICT_TIMEOUT only: the time at which the current run satisfies without further data. */
  timeoutAt(): number | undefined {
    if (this.kind !== STRICT_TIMEOUT || !this.timing || this.satisfied) return undefined;
    return this.trueEvalsStartTime + this.timeSetting;
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
