import type { ConfigTarget } from "../../../src/http/fleet/answers.ts";
/**
 * Persistence of fleet management (docs/fleet.md): which agent identity holds each feed, the
 * identities refused a held feed, the audit of feeds moved by hand, the numbered remote
 * configuration revisions and what each feed's agent reported about them. Both backends
 * (SQLite fleet.db, PostgreSQL) pass the same store tests (test/collector/store/fleet-store.test.ts).
 */

/** The identity that holds a feed, with what its agent last said about itself. */
export interface FeedIdentity {
  tenant: string;
  feed: string;
  /** Instance id (src/protocol/identity.ts). */
  instance: string;
  /** The Ed25519 public key, hex; absent when the feed was moved to an identity not seen yet. */
  publicKey?: string;
  host?: string;
  tags: Record<string, string>;
  /** When this identity took the feed (first claim or move), ms. */
  since: number;
  /** Its last claim, ms. */
  seenAt: number;
}

/** An identity that claimed a feed another holds. */
export interface IdentityConflict {
  tenant: string;
  feed: string;
  instance: string;
  publicKey?: string;
  host?: string;
  firstAt: number;
  lastAt: number;
  attempts: number;
}

export type IdentityAction = "claimed" | "moved" | "released";

/** One change of a feed's holder: the first claim, or a move or release by an admin. */
export interface IdentityChange {
  tenant: string;
  feed: string;
  at: number;
  /** The credential that made it, or "agent" for a first claim. */
  author: string;
  action: IdentityAction;
  from?: string;
  to?: string;
}

export interface Claim {
  tenant: string;
  feed: string;
  instance: string;
  publicKey: string;
  host?: string;
  tags: Record<string, string>;
  at: number;
}

/** What GET …/feeds/:feed/identity shows, as of one moment. */
export interface FeedIdentityView {
  holder?: FeedIdentity;
  conflicts: IdentityConflict[];
  changes: IdentityChange[];
}

/** A tenant's fleet as of one moment: what the feed summaries and configuration views are made of. */
export interface TenantFleet {
  identities: FeedIdentity[];
  /** Oldest first. */
  conflicts: IdentityConflict[];
  /** The newest revisions, newest first. */
  revisions: ConfigRevision[];
  configStatuses: FeedConfigStatus[];
}

export type ClaimOutcome = { granted: true; holder: FeedIdentity; first: boolean } | { granted: false; holder: FeedIdentity; conflict: IdentityConflict };

export type { ConfigTarget };

export interface ConfigRevision {
  tenant: string;
  /** 1, 2, 3… per tenant. */
  revision: number;
  target: ConfigTarget;
  /** Option names to values as written (src/agent-config/remote.ts). */
  config: Record<string, unknown>;
  author: string;
  at: number;
  comment?: string;
}

/** What a feed's agent last reported about its remote configuration. */
export interface FeedConfigStatus {
  tenant: string;
  feed: string;
  instance?: string;
  /** The revision the report is about. */
  revision: number;
  state: "applied" | "failed";
  /** The revision in effect on the agent. */
  running: number;
  error?: string;
  /** Options of the revision the agent's local configuration pins. */
  kept?: string[];
  at: number;
}

export interface FleetStore {
  /** A signed claim: the feed's first identity takes it; another one is refused and recorded as a conflict. */
  claim(c: Claim): Promise<ClaimOutcome>;
  identity(tenant: string, feed: string): Promise<FeedIdentity | undefined>;
  identities(tenant: string): Promise<FeedIdentity[]>;
  /** The conflicts of a tenant (of one feed when given), oldest first. */
  conflicts(tenant: string, feed?: string): Promise<IdentityConflict[]>;
  /** Forgets conflicts of a feed (of one identity when given); answers how many. */
  dismissConflicts(tenant: string, feed: string, instance?: string): Promise<number>;
  /**
   * Moves the feed to `to` (its conflict, if any, is resolved) or, without, releases it for the
   * next identity that claims it. Recorded with its author. Answers the previous holder.
   */
  moveFeed(tenant: string, feed: string, to: string | undefined, author: string, at: number): Promise<{ from?: string }>;
  /**
   * A feed's holder, its conflicts and its holder changes (oldest first), read in one snapshot:
   * a claim commits its holder and its "claimed" change together, and a view shows both or neither.
   */
  identityView(tenant: string, feed: string): Promise<FeedIdentityView>;
  /**
   * The tenant's identities, conflicts, newest `revisions` revisions and agents' reports, read in
   * one snapshot: a move (which resolves the new holder's conflict) or a report of a revision just
   * added shows whole or not at all.
   */
  tenantFleet(tenant: string, revisions: number): Promise<TenantFleet>;
  /** Stores a new revision numbered after the tenant's last one. */
  addRevision(r: Omit<ConfigRevision, "revision">): Promise<ConfigRevision>;
  /** The tenant's revisions, newest first. */
  revisions(tenant: string, limit: number): Promise<ConfigRevision[]>;
  revision(tenant: string, revision: number): Promise<ConfigRevision | undefined>;
  setConfigStatus(s: FeedConfigStatus): Promise<void>;
  configStatuses(tenant: string): Promise<FeedConfigStatus[]>;
  close(): Promise<void>;
}
