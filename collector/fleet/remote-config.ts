import type { FeedConfigView } from "../../src/http/fleet/answers.ts";
import type { Logger } from "../../src/log/logger.ts";
import type { ConfigMessage, ConfigStatus } from "../../src/protocol/fleet-messages.ts";
import type { ConfigRevision, FeedConfigStatus, FleetStore, TenantFleet } from "../store/fleet/types.ts";
import { configState, desiredRevision, parseRevision, reaches } from "./config-rules.ts";

/** Revisions read to find what each feed should run: a tenant keeps fewer in practice. */
const REVISIONS_SCANNED = 10_000;

export type { FeedConfigView };

/**
 * Remote configuration (docs/fleet.md): numbered revisions checked by the agent's own schema,
 * each for one feed, the feeds with given tags, or all; what each feed should run; what its
 * agent reported. New revisions are told to `onRevision` listeners (the MQTT push).
 */
export class RemoteConfigs {
  private readonly listeners = new Set<(r: ConfigRevision) => void>();
  private readonly now: () => number;

  constructor(private readonly d: { store: FleetStore; log: Logger; now?: () => number }) {
    this.now = d.now ?? Date.now;
  }

  onRevision(fn: (r: ConfigRevision) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Stores a new revision from an API body (400 when invalid) and pushes it. */
  async add(tenant: string, body: unknown, author: string): Promise<ConfigRevision> {
    const input = parseRevision(body);
    const r = await this.d.store.addRevision({ tenant, ...input, author, at: this.now() });
    this.d.log.info("new remote configuration revision", { tenant, revision: r.revision, target: JSON.stringify(r.target), author });
    for (const fn of this.listeners) fn(r);
    return r;
  }

  revisions(tenant: string, limit: number): Promise<ConfigRevision[]> {
    return this.d.store.revisions(tenant, limit);
  }

  revision(tenant: string, n: number): Promise<ConfigRevision | undefined> {
    return this.d.store.revision(tenant, n);
  }

  private async tagsOf(tenant: string, feed: string): Promise<Record<string, string>> {
    return (await this.d.store.identity(tenant, feed))?.tags ?? {};
  }

  /** What the feed should run, as the `config` message says it (revision 0 and nothing when none reaches it). */
  async messageFor(tenant: string, feed: string): Promise<ConfigMessage> {
    const r = desiredRevision(await this.d.store.revisions(tenant, REVISIONS_SCANNED), feed, await this.tagsOf(tenant, feed));
    return r ? { revision: r.revision, config: r.config } : { revision: 0, config: {} };
  }

  /** The feeds (among those with an identity, and the revision's own) a revision reaches. */
  async feedsReached(r: ConfigRevision): Promise<string[]> {
    const feeds = new Set<string>();
    if ("feed" in r.target) feeds.add(r.target.feed);
    for (const id of await this.d.store.identities(r.tenant)) if (reaches(r.target, id.feed, id.tags)) feeds.add(id.feed);
    return [...feeds].sort();
  }

  /** An agent's report. */
  async report(tenant: string, feed: string, s: ConfigStatus): Promise<void> {
    const status: FeedConfigStatus = { tenant, feed, revision: s.revision, state: s.state, running: s.running, at: this.now() };
    if (s.instance !== undefined) status.instance = s.instance;
    if (s.error !== undefined) status.error = s.error;
    if (s.kept?.length) status.kept = s.kept;
    await this.d.store.setConfigStatus(status);
    if (s.state === "failed") this.d.log.warn("an agent refused a configuration revision; it keeps the previous one", { tenant, feed, revision: s.revision, running: s.running, err: s.error });
    else this.d.log.info("an agent applied a configuration revision", { tenant, feed, revision: s.revision, kept: s.kept?.join(",") || undefined });
  }

  /** The tenant's fleet as views() reads it, in one snapshot (FleetStore.tenantFleet). */
  snapshot(tenant: string): Promise<TenantFleet> {
    return this.d.store.tenantFleet(tenant, REVISIONS_SCANNED);
  }

  /**
   * Each feed's configuration state, for the given feeds and every feed that has an identity or
   * reported; from `fleet` when the caller read it already (snapshot()).
   */
  async views(tenant: string, feeds: Iterable<string> = [], fleet?: TenantFleet): Promise<Map<string, FeedConfigView>> {
    const { revisions, identities, configStatuses: statuses } = fleet ?? (await this.snapshot(tenant));
    const tags = new Map(identities.map((i) => [i.feed, i.tags]));
    const reports = new Map(statuses.map((s) => [s.feed, s]));
    const all = new Set<string>([...feeds, ...tags.keys(), ...reports.keys()]);
    const out = new Map<string, FeedConfigView>();
    for (const feed of [...all].sort()) {
      const desired = desiredRevision(revisions, feed, tags.get(feed) ?? {})?.revision ?? 0;
      const report = reports.get(feed);
      const state = configState(desired, report);
      const v: FeedConfigView = { desired, applied: report?.running ?? 0, state };
      if (state === "FAILED" && report?.error) v.error = report.error;
      if (report?.kept?.length && report.revision === desired) v.kept = report.kept;
      if (report) v.reportedAt = report.at;
      out.set(feed, v);
    }
    return out;
  }
}
