import type { FittedModel } from "../../../src/forecast/fit.ts";
import { MODEL_SHAPES } from "../../../src/forecast/models.ts";
import type { SubscriptionRecord } from "../../store/forecast/types.ts";

const finite = (x: number) => (Number.isFinite(x) ? x : undefined);

function modelJson(m: FittedModel) {
  const shape = MODEL_SHAPES[m.name];
  const r = m.residuals;
  return {
    name: m.name,
    alpha: m.params.alpha,
    beta: shape.trend ? m.params.beta : undefined,
    gamma: shape.seasonal ? m.params.gamma : undefined,
    period: shape.seasonal ? m.period : undefined,
    level: m.state.level,
    trend: shape.trend ? m.state.trend : undefined,
    seasonals: shape.seasonal ? m.state.seasonals : undefined,
    /** Standard deviation of the one-step errors: the width of the forecast band. */
    sigma: r.count > 0 ? Math.sqrt(r.sumSquares / r.count) : undefined,
  };
}

/** A subscription as GET /metrics and GET /metrics/{id} show it. */
export function subscriptionJson(s: SubscriptionRecord) {
  const f = s.forecaster;
  return {
    metricId: s.metricId,
    tenant: s.tenant,
    collectionInterval: s.collectionInterval,
    forecaster: {
      config: f.config,
      model: f.model ? modelJson(f.model) : undefined,
      detectedPeriod: f.config.period === undefined ? f.period : undefined,
      candidates: f.scores?.map((c) => ({ name: c.name, period: c.period || undefined, [f.config.ic]: finite(c.score), mse: c.mse, points: c.n })),
      learnedPoints: f.learned,
      windowPoints: f.window.values.length,
      lastTimestamp: f.lastTimestamp,
    },
  };
}
