import {
  type Alert,
  completeFullTrigger,
  createAlertsEngine,
  createManualClock,
  type Dampening,
  type DampeningType,
  DampeningState,
  type EngineData,
  type EngineEffect,
  type Event,
  type FullTrigger,
  fullTriggerSchema,
} from "../../src/alerts/index.ts";

export const TENANT = "t1";

/** A full trigger from JSON, through the same schema and completion the HTTP layer uses. */
export function fullTrigger(json: { trigger: Record<string, unknown>; conditions?: unknown[]; dampenings?: unknown[] }): FullTrigger {
  return completeFullTrigger(fullTriggerSchema.parse(json), TENANT, () => "generated-id");
}

/** An engine on a manual clock that records everything it reports. */
export function testEngine(options: { minReportingIntervalData?: number; minReportingIntervalEvents?: number; start?: number } = {}) {
  const clock = createManualClock(options.start ?? 1_000_000);
  const effects: EngineEffect[] = [];
  let n = 0;
  const engine = createAlertsEngine({
    clock: clock.now,
    scheduler: clock.scheduler,
    idGenerator: () => `u${++n}`,
    listener: (e) => effects.push(e),
    minReportingIntervalData: options.minReportingIntervalData ?? 0,
    minReportingIntervalEvents: options.minReportingIntervalEvents,
  });
  const alerts = () => effects.flatMap((e) => (e.kind === "alert" ? [e.alert] : []));
  const events = () => effects.flatMap((e) => (e.kind === "event" ? [e.event] : []));
  const fired = (): (Alert | Event)[] => effects.flatMap((e) => (e.kind === "alert" ? [e.alert] : e.kind === "event" ? [e.event] : []));
  let ts = 0;
  /** Sends values for one dataId, one batch each, the clock moving `step` ms between them. */
  const send = (dataId: string, values: (string | number)[], step = 1000, source?: string) => {
    for (const v of values) {
      ts += 1000;
      const d: EngineData = { tenantId: TENANT, id: dataId, timestamp: ts, value: v };
      if (source !== undefined) d.source = source;
      engine.sendData([d]);
      clock.advance(step);
    }
  };
  const datum = (id: string, value: string | number, timestamp?: number): EngineData => ({
    tenantId: TENANT,
    id,
    value,
    timestamp: timestamp ?? (ts += 1000),
  });
  return { engine, clock, effects, alerts, events, fired, send, datum };
}

export function threshold(dataId: string, operator: string, value: number, triggerMode = "FIRING") {
  return { type: "THRESHOLD", triggerMode, dataId, operator, threshold: value };
}

/** A dampening state machine of one trigger's FIRING mode, with these settings. */
export function dampeningState(type: DampeningType, evalTrueSetting = 0, evalTotalSetting = 0, evalTimeSetting = 0): DampeningState {
  const def: Dampening = { tenantId: "t", triggerId: "x", triggerMode: "FIRING", type, evalTrueSetting, evalTotalSetting, evalTimeSetting, dampeningId: "t-x-FIRING" };
  return new DampeningState(def);
}
