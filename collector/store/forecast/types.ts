import type { ForecasterState } from "../../../src/forecast/forecaster.ts";

/** A metric subscribed for forecasting, with everything its forecaster has learned. */
export interface SubscriptionRecord {
  tenant: string;
  metricId: string;
  /** Seconds between the metric's points; forecast timestamps step by it. Absent: inferred. */
  collectionInterval?: number;
  forecaster: ForecasterState;
  /** ms since the epoch. */
  createdAt: number;
  /** Stores shared by collectors (PostgreSQL): the row's count of saves when read or last saved. */
  revision?: number;
}

/**
 * Persistence of forecasting subscriptions. Every call is scoped by tenant and metric id.
 * Async so that a networked backend fits the same shape.
 */
export interface ForecastStore {
  /** Every subscription of every tenant (loaded once at start). */
  all(): Promise<SubscriptionRecord[]>;
  /** False when the tenant already subscribed the metric. */
  insert(r: SubscriptionRecord): Promise<boolean>;
  /** Replaces the stored subscription; does nothing when it was deleted meanwhile. */
  save(r: SubscriptionRecord): Promise<void>;
  /** Stores shared by collectors: every subscription's revision, without its state (cheap to poll). */
  revisions?(): Promise<{ tenant: string; metricId: string; revision: number }[]>;
  /** With `revisions`: one subscription as stored now; undefined when it is gone. */
  get?(tenant: string, metricId: string): Promise<SubscriptionRecord | undefined>;
  /** False when there was no such subscription. */
  delete(tenant: string, metricId: string): Promise<boolean>;
  close(): Promise<void>;
}
