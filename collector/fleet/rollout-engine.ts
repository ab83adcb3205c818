import { randomBytes } from "node:crypto";
import type { Encoder } from "cbor-x";
import { ApiError, badRequest, conflict } from "../../src/http/errors.ts";
import type { Logger } from "../../src/log/logger.ts";
import type { Status } from "../../src/protocol/control-messages.ts";
import { buildTopic } from "../../src/protocol/topics.ts";
import { encodeUpgradeOrder, type UpgradeOrder } from "../../src/protocol/upgrade-messages.ts";
import { compareVersions } from "../../src/release/version.ts";
import type { AgentReport, ReleaseStore, RolloutRecord } from "../store/releases/types.ts";
import { planTargets, selects, step } from "./rollout-plan.ts";

/** What a new rollout is asked for: the record's settings, before the targets are planned. */
export type RolloutRequest = Pick<RolloutRecord, "version" | "selector" | "canary" | "batches" | "force" | "deadlineMs" | "timeoutMs">;

/** Where agents download binaries: this collector's HTTP port (and scheme), or its external URL. */
export interface DownloadPlace {
  httpPort?: number;
  tls: boolean;
  externalUrl?: string;
}

export type Publish = (topic: string, payload: Uint8Array, retain: boolean) => Promise<void>;

export interface RolloutEngineDeps {
  store: ReleaseStore;
  prefix: string;
  enc: Encoder;
  download: () => DownloadPlace;
  log: Logger;
  now?: () => number;
}

/** How long the list of active rollouts read for agents' statuses is reused. */
const ACTIVE_TTL_MS = 5000;

/**
 * Runs the rollouts (docs/fleet.md, "Upgrades"): publishes each ordered feed's upgrade order
 * (retained, on its `upgrade` topic), takes the agents' statuses as reports, and moves each
 * rollout as rollout-plan.ts decides: the next batch once a batch succeeded, a pause at the
 * first failure. Every change goes through the store (compare-and-set), so collectors sharing a
 * database can all take reports; orders are retained messages, the same whoever publishes them.
 */
export class RolloutEngine {
  private publishFn: Publish | undefined;
  private readonly queues = new Map<string, Promise<unknown>>();
  private active: { at: number; byTenant: Map<string, { id: string; feeds: Set<string> }[]> } | undefined;
  private readonly now: () => number;

  constructor(private readonly d: RolloutEngineDeps) {
    this.now = d.now ?? Date.now;
  }

  /** The broker is there: orders can go out; those of running rollouts go out again (a restarted broker lost them). */
  async attach(publish: Publish): Promise<void> {
    this.publishFn = publish;
    for (const r of await this.d.store.activeRollouts()) {
      if (r.state !== "running") continue;
      const feeds = r.targets.filter((t) => t.state === "ordered").map((t) => t.feed);
      if (feeds.length > 0) await this.publishOrders(r, feeds);
    }
  }

  async create(tenant: string, q: RolloutRequest, who: string): Promise<RolloutRecord> {
    return this.serial(tenant, async () => {
      const binaries = await this.d.store.binaries(q.version);
      if (binaries.length === 0) throw new ApiError(404, `No release ${q.version}: upload its binaries first (PUT /svc/fleet/releases/${q.version}/binaries/{arch})`);
      const reports = await this.d.store.reports(tenant);
      const missing = (q.selector.feeds ?? []).filter((f) => !reports.some((r) => r.feed === f));
      if (missing.length > 0) throw badRequest(`No agent of feed${missing.length > 1 ? "s" : ""} ${list(missing)} has reported to this collector in tenant ${tenant}`);
      const chosen = reports.filter((r) => selects(q.selector, r));
      if (chosen.length === 0) throw badRequest(`No feed of tenant ${tenant} matches ${JSON.stringify(q.selector)} (only agents that reported their version count)`);
      const arches = new Set(binaries.map((b) => b.arch));
      const noBinary = chosen.filter((r) => r.arch !== undefined && !arches.has(r.arch as never));
      if (noBinary.length > 0) throw badRequest(`Release ${q.version} has no binary for ${list([...new Set(noBinary.map((r) => r.arch!))])}, which ${list(noBinary.map((r) => r.feed))} run`);
      const newer = chosen.filter((r) => r.version !== undefined && safeCompare(r.version, q.version) > 0);
      if (newer.length > 0 && !q.force) {
        throw conflict(`${list(newer.map((r) => `${r.feed} (${r.version})`))} run${newer.length === 1 ? "s" : ""} a newer version than ${q.version}: a downgrade needs "force": true`);
      }
      const busy = await this.busyFeeds(tenant, new Set(chosen.map((r) => r.feed)));
      if (busy.length > 0) throw conflict(`${list(busy.map((b) => `${b.feed} (rollout ${b.id})`))} ${busy.length === 1 ? "is" : "are"} already in a rollout under way: let it finish or pause it first`);
      const now = this.now();
      const r: RolloutRecord = {
        tenant,
        id: randomBytes(4).toString("hex"),
        version: q.version,
        selector: q.selector,
        canary: q.canary,
        batches: q.batches,
        force: q.force,
        deadlineMs: q.deadlineMs,
        timeoutMs: q.timeoutMs,
        state: "running",
        batch: 0,
        createdAt: now,
        createdBy: who,
        updatedAt: now,
        revision: 0,
        targets: planTargets(chosen, q.canary, q.batches, now),
      };
      if (!(await this.d.store.insertRollout(r))) throw conflict("A rollout of that id exists; retry");
      this.active = undefined;
      this.d.log.info("rollout created", { tenant, rollout: r.id, version: r.version, feeds: r.targets.length, by: who });
      await this.reconcile(tenant, r.id);
      return (await this.d.store.rollout(tenant, r.id))!;
    });
  }

  /** Feeds of `feeds` still waited for by a running or paused rollout. */
  private async busyFeeds(tenant: string, feeds: Set<string>): Promise<{ feed: string; id: string }[]> {
    const out: { feed: string; id: string }[] = [];
    for (const r of await this.d.store.activeRollouts()) {
      if (r.tenant !== tenant) continue;
      for (const t of r.targets) if (feeds.has(t.feed) && (t.state === "pending" || t.state === "ordered")) out.push({ feed: t.feed, id: r.id });
    }
    return out;
  }

  async pause(tenant: string, id: string, who: string): Promise<RolloutRecord> {
    return this.serial(tenant, async () => {
      const r = await this.get(tenant, id);
      if (r.state !== "running") throw conflict(`Rollout ${id} is ${r.state}: only a running rollout pauses`);
      if (!(await this.d.store.updateRollout(tenant, id, r.revision, { state: "paused", batch: r.batch, reason: `paused by ${who}` }, this.now()))) throw conflict(`Rollout ${id} changed meanwhile; retry`);
      await this.withdrawOrders(r);
      this.d.log.info("rollout paused", { tenant, rollout: id, by: who });
      return this.get(tenant, id);
    });
  }

  async resume(tenant: string, id: string, who: string): Promise<RolloutRecord> {
    return this.serial(tenant, async () => {
      const r = await this.get(tenant, id);
      if (r.state !== "paused") throw conflict(`Rollout ${id} is ${r.state}: only a paused rollout resumes`);
      const now = this.now();
      if (!(await this.d.store.updateRollout(tenant, id, r.revision, { state: "running", batch: r.batch }, now))) throw conflict(`Rollout ${id} changed meanwhile; retry`);
      // Orders withdrawn by the pause go out again, and their wait starts over.
      const ordered = r.targets.filter((t) => t.state === "ordered").map((t) => t.feed);
      for (const feed of ordered) await this.d.store.updateTarget(tenant, id, feed, { state: "ordered", at: now });
      await this.publishOrders(r, ordered);
      this.d.log.info("rollout resumed", { tenant, rollout: id, by: who });
      await this.reconcile(tenant, id);
      return this.get(tenant, id);
    });
  }

  async list(tenant: string): Promise<RolloutRecord[]> {
    return this.d.store.rollouts(tenant);
  }

  async get(tenant: string, id: string): Promise<RolloutRecord> {
    const r = await this.d.store.rollout(tenant, id);
    if (!r) throw new ApiError(404, `No rollout ${id} in tenant ${tenant}`);
    return r;
  }

  /** An agent's status: kept as its report, and the rollouts waiting for it look again. */
  async onStatus(tenant: string, feed: string, s: Status): Promise<void> {
    if (s.state !== "online" && s.version === undefined && s.upgrade === undefined) return;
    const report: AgentReport = { tenant, feed, version: s.version, arch: s.arch, upgrade: s.upgrade, tags: s.tags, at: this.now() };
    await this.d.store.saveReport(report);
    const mine = (await this.activeByTenant()).get(tenant)?.filter((a) => a.feeds.has(feed)) ?? [];
    for (const a of mine) {
      await this.serial(tenant, async () => {
        const r = await this.reconcile(tenant, a.id);
        // Its order again (a broker that restarted lost it); the agent skips one it handled.
        if (s.state === "online" && r?.state === "running" && r.targets.some((t) => t.feed === feed && t.state === "ordered")) await this.publishOrders(r, [feed]);
      });
    }
  }

  /** Every running rollout looks again (feeds whose outcome is overdue fail). */
  async tick(): Promise<void> {
    for (const r of await this.d.store.activeRollouts()) {
      if (r.state === "running") await this.serial(r.tenant, () => this.reconcile(r.tenant, r.id));
    }
  }

  private async activeByTenant(): Promise<Map<string, { id: string; feeds: Set<string> }[]>> {
    if (this.active && this.now() - this.active.at < ACTIVE_TTL_MS) return this.active.byTenant;
    const byTenant = new Map<string, { id: string; feeds: Set<string> }[]>();
    for (const r of await this.d.store.activeRollouts()) {
      const list = byTenant.get(r.tenant) ?? [];
      list.push({ id: r.id, feeds: new Set(r.targets.map((t) => t.feed)) });
      byTenant.set(r.tenant, list);
    }
    this.active = { at: this.now(), byTenant };
    return byTenant;
  }

  /** Applies one step of the rollout; retried when another collector changed it meanwhile. */
  private async reconcile(tenant: string, id: string): Promise<RolloutRecord | undefined> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const r = await this.d.store.rollout(tenant, id);
      if (!r || r.state === "completed") return r;
      const reports = new Map((await this.d.store.reports(tenant)).map((x) => [x.feed, x] as const));
      const s = step(r, reports, this.now());
      let failure: { feed: string; reason?: string } | undefined;
      const ordered: string[] = [];
      for (const { feed, change } of s.targets) {
        if (!(await this.d.store.updateTarget(tenant, id, feed, change))) continue;
        if (change.state === "failed") failure ??= { feed, reason: change.reason };
        if (change.state === "ordered") ordered.push(feed);
        if (change.state !== "ordered") this.d.log.info(`rollout feed ${change.state}`, { tenant, rollout: id, feed, version: r.version, reason: change.reason });
      }
      if (failure && r.state === "running") {
        const reason = `${failure.feed} failed: ${failure.reason ?? "unknown reason"}`;
        if (!(await this.d.store.updateRollout(tenant, id, r.revision, { state: "paused", batch: r.batch, reason }, this.now()))) continue;
        this.d.log.warn("rollout paused at its first failure", { tenant, rollout: id, reason });
        await this.withdrawOrders({ ...r, targets: r.targets.map((t) => (ordered.includes(t.feed) ? { ...t, state: "ordered" } : t)) });
        this.active = undefined;
        return this.d.store.rollout(tenant, id);
      }
      if (s.rollout && !(await this.d.store.updateRollout(tenant, id, r.revision, s.rollout, this.now()))) continue;
      if (ordered.length > 0) await this.publishOrders(r, ordered);
      if (s.rollout?.state === "completed") {
        this.active = undefined;
        this.d.log.info("rollout completed", { tenant, rollout: id, version: r.version });
      } else if (s.rollout) this.d.log.info("rollout batch started", { tenant, rollout: id, batch: s.rollout.batch, feeds: ordered.length });
      return this.d.store.rollout(tenant, id);
    }
    this.d.log.warn("rollout kept changing under this collector; it is looked at again on the next report or tick", { tenant, rollout: id });
    return undefined;
  }

  private async order(r: RolloutRecord): Promise<UpgradeOrder> {
    const place = this.d.download();
    const path = `/svc/fleet/releases/${encodeURIComponent(r.version)}/binaries`;
    const binaries: UpgradeOrder["binaries"] = {};
    for (const b of await this.d.store.binaries(r.version)) binaries[b.arch] = { size: b.size, sha256: b.sha256, signature: b.signature };
    return {
      rollout: r.id,
      version: r.version,
      force: r.force,
      deadlineMs: r.deadlineMs,
      download: place.externalUrl ? `${place.externalUrl.replace(/\/+$/, "")}${path}` : path,
      ...(place.externalUrl || place.httpPort === undefined ? {} : { httpPort: place.httpPort, tls: place.tls }),
      binaries,
    };
  }

  private async publishOrders(r: RolloutRecord, feeds: string[]): Promise<void> {
    if (feeds.length === 0 || !this.publishFn) return;
    const payload = encodeUpgradeOrder(this.d.enc, await this.order(r));
    for (const feed of feeds) await this.send(r.tenant, feed, payload);
  }

  /** Clears the retained orders of feeds still ordered: an agent that has not begun does not begin. */
  private async withdrawOrders(r: RolloutRecord): Promise<void> {
    for (const t of r.targets) if (t.state === "ordered") await this.send(r.tenant, t.feed, new Uint8Array(0));
  }

  private async send(tenant: string, feed: string, payload: Uint8Array): Promise<void> {
    try {
      await this.publishFn?.(buildTopic(this.d.prefix, { tenant, feed, kind: "upgrade" }), payload, true);
    } catch (e) {
      // Sent again when the agent next comes online, or the rollout is resumed.
      this.d.log.warn("publishing an upgrade order failed", { tenant, feed, err: (e as Error).message });
    }
  }

  private serial<T>(tenant: string, job: () => Promise<T>): Promise<T> {
    const run = (this.queues.get(tenant) ?? Promise.resolve()).then(job, job);
    this.queues.set(
      tenant,
      run.catch(() => undefined),
    );
    return run;
  }
}

function safeCompare(a: string, b: string): number {
  try {
    return compareVersions(a, b);
  } catch {
    return 0;
  }
}

function list(items: string[]): string {
  return items.length <= 5 ? items.join(", ") : `${items.slice(0, 5).join(", ")} and ${items.length - 5} more`;
}
