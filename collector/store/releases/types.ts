import type { UpgradeReport } from "../../../src/protocol/upgrade-messages.ts";
import type { ReleaseDescription } from "../../../src/release/signature.ts";
import { type FeedSelector, ROLLOUT_STATES, type RolloutState, type RolloutTarget, type TargetState } from "../../../src/http/fleet/answers.ts";

/** One uploaded agent binary: what the release key signed, the signature, who uploaded it. */
export interface ReleaseBinary extends ReleaseDescription {
  signature: string;
  uploadedAt: number;
  uploadedBy: string;
}

export { ROLLOUT_STATES };
export type { FeedSelector, RolloutState, RolloutTarget, TargetState };

export interface RolloutRecord {
  tenant: string;
  id: string;
  version: string;
  selector: FeedSelector;
  /** Feeds of the first batch. */
  canary: number;
  /** Cumulative shares of the targets after the canary, in percent, ending at 100. */
  batches: number[];
  /** A downgrade is allowed. */
  force: boolean;
  /** How long an upgraded agent has to prove itself (agent side), and the collector waits for its report beyond that. */
  deadlineMs: number;
  /** How long the collector waits for an ordered feed's outcome; then the feed counts as failed. */
  timeoutMs: number;
  state: RolloutState;
  /** Why it paused (the first failure, or who paused it). */
  reason?: string;
  /** The batch under way (0: canary). */
  batch: number;
  createdAt: number;
  createdBy: string;
  updatedAt: number;
  /** Count of changes to the rollout's own row: updates are compare-and-set on it. */
  revision: number;
  targets: RolloutTarget[];
}

/** What the latest status of a feed's agent said about its version and upgrades. */
export interface AgentReport {
  tenant: string;
  feed: string;
  version?: string;
  arch?: string;
  upgrade?: UpgradeReport;
  /** The agent's tags (--tags), by which rollouts select feeds. */
  tags?: Record<string, string>;
  /** Collector clock when it arrived, ms. */
  at: number;
}

export type RolloutChange = Pick<RolloutRecord, "state" | "batch"> & { reason?: string };
export type TargetChange = Pick<RolloutTarget, "state"> & { reason?: string; at: number };

/**
 * Agent releases, rollouts and the agents' reports (docs/fleet.md, "Upgrades"). Releases are the
 * collector's (uploaded by an admin), rollouts and reports a tenant's. Binaries are kept in 1 MiB
 * pieces in the store itself, so every collector sharing a database serves them.
 */
export interface ReleaseStore {
  /** Stores a binary whose bytes `pieces` yields; false (nothing stored) when that version and architecture exist. */
  putBinary(b: ReleaseBinary, pieces: Iterable<Uint8Array>): Promise<boolean>;
  /** Every binary, or those of one version; by version, then architecture. */
  binaries(version?: string): Promise<ReleaseBinary[]>;
  /** The binary's bytes in pieces, read one at a time; undefined when there is none. */
  readBinary(version: string, arch: string): Promise<AsyncIterable<Uint8Array> | undefined>;
  /** Deletes every binary of the version; the count deleted. */
  deleteRelease(version: string): Promise<number>;

  /** False when the tenant has a rollout of that id. */
  insertRollout(r: RolloutRecord): Promise<boolean>;
  rollouts(tenant: string): Promise<RolloutRecord[]>;
  rollout(tenant: string, id: string): Promise<RolloutRecord | undefined>;
  /** Running and paused rollouts of every tenant (what the engine watches). */
  activeRollouts(): Promise<RolloutRecord[]>;
  /** Compare-and-set on the revision: false when the rollout changed since `revision` (or is gone). */
  updateRollout(tenant: string, id: string, revision: number, change: RolloutChange, at: number): Promise<boolean>;
  /** Sets a target's state; false when it was already in a final state (succeeded, failed) or is not a target. */
  updateTarget(tenant: string, id: string, feed: string, change: TargetChange): Promise<boolean>;

  saveReport(r: AgentReport): Promise<void>;
  reports(tenant: string): Promise<AgentReport[]>;
  close(): Promise<void>;
}

/** Pieces of a stored binary. */
export const PIECE_BYTES = 1024 * 1024;
