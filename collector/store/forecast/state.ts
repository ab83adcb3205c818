import { type ForecasterState, newForecaster } from "../../../src/forecast/forecaster.ts";
import type { Logger } from "../../../src/log/logger.ts";
import type { SubscriptionRecord } from "./types.ts";

/**
 * Version of the stored forecaster state. A row with another version (or unreadable JSON)
 * keeps its subscription but restarts its forecaster: relearning beats failing to start.
 */
export const STATE_VERSION = 1;

/** A stored subscription, as both engines return it (numbers may come back as text from PostgreSQL). */
export interface SubscriptionRow {
  tenant: string;
  metric_id: string;
  collection_interval: number | string | null;
  state_version: number | string;
  state: string;
  created_at: number | string;
}

function restore(row: SubscriptionRow, log: Logger): ForecasterState {
  if (Number(row.state_version) === STATE_VERSION) {
    try {
      return JSON.parse(row.state) as ForecasterState;
    } catch (e) {
      log.warn("unreadable forecaster state; starting afresh", { tenant: row.tenant, metric: row.metric_id, err: String(e) });
    }
  } else {
    log.warn("forecaster state of another version; starting afresh", { tenant: row.tenant, metric: row.metric_id });
  }
  return newForecaster();
}

export function toSubscription(row: SubscriptionRow, log: Logger): SubscriptionRecord {
  return {
    tenant: row.tenant,
    metricId: row.metric_id,
    collectionInterval: row.collection_interval === null ? undefined : Number(row.collection_interval),
    forecaster: restore(row, log),
    createdAt: Number(row.created_at),
  };
}
