import { compileEventExpression } from "../conditions/event.ts";
import { compileStringMatcher } from "../conditions/string.ts";
import { DampeningState, type LatestEval } from "../dampening.ts";
import { isGroupTrigger } from "../groups.ts";
import { dampeningId } from "../ids.ts";
import type { Condition, ConditionEval, Dampening, Event, FullTrigger, StringMap, Trigger, TriggerMode } from "../model.ts";
import { SOURCE_NONE } from "../model.ts";
import { NelsonState, nelsonRuleMask } from "../nelson.ts";
import type { IndexEntry } from "./data-index.ts";
import { snapshotSet } from "./snapshot.ts";

/**
 * Run-time state of one condition: its compiled matcher and the latest evaluation (the slot
 * dampening reads). Evaluation fields are overwritten in place, so a false evaluation allocates
 * nothing; an evaluation record is built only when a true step needs it.
 */
export class ConditionRt implements LatestEval {
  hasEval = false;
  match = false;
  evalTimestamp = 0;
  dataTimestamp = 0;
  context: StringMap | undefined = undefined;
  /** number (threshold, range, compare value1, rate, nelson), string (string, external), availability, or unused */
  value: unknown = undefined;
  value2 = 0;
  context2: StringMap | undefined = undefined;
  previousValue = 0;
  previousTime = 0;
  time = 0;
  rate = 0;
  event: Event | undefined = undefined;
  nelsonViolations = 0;
  nelsonMean = Number.NaN;
  nelsonSigma = Number.NaN;

  /** Compare conditions evaluate once per round even when both of their dataIds arrive in it. */
  roundSeq = 0;
  /** Missing conditions: clock time of the last arrival (or of enablement). */
  lastArrival = 0;
  timer: unknown = undefined;

  readonly stringMatcher: ((v: string) => boolean) | undefined;
  readonly eventMatcher: ((e: Event) => boolean) | undefined;
  readonly nelson: NelsonState | undefined;
  readonly nelsonMask: number;
  entry1: IndexEntry | undefined = undefined;
  entry2: IndexEntry | undefined = undefined;

  constructor(
    readonly def: Condition,
    readonly trigger: TriggerRt,
    nelson?: NelsonState,
  ) {
    this.stringMatcher = def.type === "STRING" ? compileStringMatcher(def) : undefined;
    this.eventMatcher = def.type === "EVENT" ? compileEventExpression(def.expression) : undefined;
    this.nelson = def.type === "NELSON" ? (nelson ?? new NelsonState(def.sampleSize)) : undefined;
    this.nelsonMask = def.type === "NELSON" ? nelsonRuleMask(def.activeRules) : 0;
  }

  clearEval(): void {
    this.hasEval = false;
    this.match = false;
    this.event = undefined;
  }
}

/** Run-time state of one loaded trigger. */
export class TriggerRt {
  mode: TriggerMode = "FIRING";
  /** Enabled and not a group definition: its conditions are in the index. */
  active = false;
  removed = false;
  touchSeq = 0;
  readonly source: string;
  readonly conditions: Record<TriggerMode, ConditionRt[]>;
  readonly dampenings: Record<TriggerMode, DampeningState>;
  timeoutTimers: Record<TriggerMode, unknown> = { FIRING: undefined, AUTORESOLVE: undefined };
  /** Builds the evaluation set of a mode; made once so a dampening step allocates no closure. */
  readonly snapshot: Record<TriggerMode, () => ConditionEval[]>;

  constructor(
    public def: Trigger,
    readonly full: FullTrigger,
    previous?: TriggerRt,
  ) {
    this.source = def.source && def.source.length > 0 ? def.source : SOURCE_NONE;
    this.conditions = { FIRING: [], AUTORESOLVE: [] };
    for (const c of orderedConditions(full.conditions)) {
      this.conditions[c.triggerMode].push(new ConditionRt(c, this, previous?.nelsonStateFor(c)));
    }
    this.snapshot = {
      FIRING: () => snapshotSet(this.conditions.FIRING),
      AUTORESOLVE: () => snapshotSet(this.conditions.AUTORESOLVE),
    };
    this.dampenings = {
      FIRING: new DampeningState(dampeningFor(full, "FIRING")),
      AUTORESOLVE: new DampeningState(dampeningFor(full, "AUTORESOLVE")),
    };
  }

  get evaluable(): boolean {
    return !isGroupTrigger(this.def);
  }

  get match() {
    return this.mode === "FIRING" ? this.def.firingMatch : this.def.autoResolveMatch;
  }

  /** Nelson baselines survive a reload when the condition is unchanged. */
  nelsonStateFor(c: Condition): NelsonState | undefined {
    if (c.type !== "NELSON") return undefined;
    for (const rt of this.conditions[c.triggerMode]) {
      const d = rt.def;
      if (d.type === "NELSON" && d.conditionId === c.conditionId && d.dataId === c.dataId && d.sampleSize === c.sampleSize) return rt.nelson;
    }
    return undefined;
  }

  /** A freshly loaded trigger's state: FIRING, fresh dampening, no evaluations, missing intervals counted from now. */
  reset(now: number): void {
    this.mode = "FIRING";
    this.dampenings.FIRING.reset();
    this.dampenings.AUTORESOLVE.reset();
    for (const c of this.allConditions()) {
      c.clearEval();
      c.lastArrival = now;
    }
  }

  enterAutoResolve(): void {
    this.mode = "AUTORESOLVE";
    this.dampenings.AUTORESOLVE.reset();
    for (const c of this.conditions.AUTORESOLVE) c.clearEval();
  }

  allConditions(): ConditionRt[] {
    return [...this.conditions.FIRING, ...this.conditions.AUTORESOLVE];
  }
}

/** Conditions of each mode in set order (conditionSetIndex, then list order). */
function orderedConditions(conditions: readonly Condition[]): Condition[] {
  return conditions
    .map((c, i) => ({ c, i }))
    .sort((a, b) => (a.c.conditionSetIndex ?? 0) - (b.c.conditionSetIndex ?? 0) || a.i - b.i)
    .map((x) => x.c);
}

/** The trigger's dampening for a mode; without one, the implicit STRICT(1). */
function dampeningFor(full: FullTrigger, mode: TriggerMode): Dampening {
  const found = full.dampenings.find((d) => d.triggerMode === mode);
  if (found) return found;
  const t = full.trigger;
  return {
    tenantId: t.tenantId,
    triggerId: t.id,
    triggerMode: mode,
    type: "STRICT",
    evalTrueSetting: 1,
    evalTotalSetting: 1,
    evalTimeSetting: 0,
    dampeningId: dampeningId(t.tenantId, t.id, mode),
  };
}
