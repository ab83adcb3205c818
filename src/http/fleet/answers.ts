/**
 * Shapes the fleet API answers in (docs/fleet.md), shared by the collector, which keeps and
 * serves them, and the web console, which reads them. Types and constants only, no runtime
 * imports: the console's browser build includes this file.
 */

/** Which feeds a rollout upgrades: those with every one of these tags, and/or these feeds. */
export interface FeedSelector {
  tags?: Record<string, string>;
  feeds?: string[];
}

export const ROLLOUT_STATES = ["running", "paused", "completed"] as const;
export type RolloutState = (typeof ROLLOUT_STATES)[number];

/** pending: its batch has not started; ordered: the order is published; then the outcome. */
export type TargetState = "pending" | "ordered" | "succeeded" | "failed";

export interface RolloutTarget {
  feed: string;
  /** 0 is the canary batch. */
  batch: number;
  state: TargetState;
  /** The version the feed ran when the rollout was made. */
  from?: string;
  reason?: string;
  /** When the state last changed, ms. */
  at?: number;
}

/** The feeds a configuration revision is for: one feed, the feeds with all these tags, or every feed of the tenant. */
export type ConfigTarget = { feed: string } | { tags: Record<string, string> } | { all: true };

export type ConfigStateName = "UNSET" | "APPLIED" | "APPLYING" | "FAILED";

/** A feed's remote configuration as the fleet API shows it. */
export interface FeedConfigView {
  /** The revision the feed should run (0: none reaches it). */
  desired: number;
  /** The revision its agent runs, as last reported (0: none, or never reported). */
  applied: number;
  state: ConfigStateName;
  /** Why the agent refused the desired revision (state FAILED). */
  error?: string;
  /** Options of the desired revision the agent's local file pins (kept local). */
  kept?: string[];
  /** When the agent last reported. */
  reportedAt?: number;
}
