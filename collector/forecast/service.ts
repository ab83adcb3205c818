import {
  type ForecasterUpdate,
  type ForecastPoint,
  forecast,
  type LearnPoint,
  learn,
  newForecaster,
  reconfigure,
  typicalStep,
} from "../../src/forecast/forecaster.ts";
import { isStaleMarker } from "../../src/prometheus/staleness.ts";
import type { Logger } from "../../src/log/logger.ts";
import type { Ownership } from "../../src/partitions.ts";
import { storageFailure } from "../../src/sqlite/storage-failure.ts";
import type { WrittenPoints } from "../events/points-bus.ts";
import type { ForecastStore, SubscriptionRecord } from "../store/forecast/types.ts";
import { SubscriptionExistsError, SubscriptionNotFoundError } from "./errors.ts";
import { LEARNED_TYPES, type PointSource, readHistory } from "./history.ts";

export interface ForecastingDeps {
  store: ForecastStore;
  /** Where the history of a metric is read from; absent: forecasters learn only what arrives. */
  points?: PointSource;
  log: Logger;
  now?: () => number;
  /**
   * Collectors sharing a database (docs/scale-out.md): only the holder of a tenant's lease
   * learns, from the stored points, in `syncWithStore` rounds; the others show what it saved.
   */
  ownership?: Ownership;
}

export interface Blueprint {
  metricId: string;
  collectionInterval?: number;
}

export interface MetricUpdate extends ForecasterUpdate {
  collectionInterval?: number;
}

/** How much history a new subscription reads: three windows, room for three seasons of the longest detectable one. */
const HISTORY_WINDOWS = 3;

const learnedType = new Set<string>(LEARNED_TYPES);

/**
 * What the store's row holds of a subscription: equal strings, equal rows. Its revision where
 * the store counts saves (PostgreSQL), else its whole state.
 */
const stateOf = (r: SubscriptionRecord): string =>
  r.revision !== undefined ? `#${r.revision}` : `${r.collectionInterval ?? ""}|${JSON.stringify(r.forecaster)}`;

/**
 * The forecasting subscriptions of all tenants: kept in memory (a forecast is a few
 * multiplications on the current state), written through to the store after every change.
 * Learns from the points committed to the metrics store (via `onPoints`) and, on subscribe
 * and at start, from the history the store already holds.
 */
export class ForecastingService {
  private readonly subs = new Map<string, Map<string, SubscriptionRecord>>();
  /** Points that arrived while a subscription was reading its history, learned after it. */
  private readonly backfilling = new Map<SubscriptionRecord, LearnPoint[]>();
  /** Per subscription, the last save in flight: saves of one subscription stay in order. */
  private readonly saving = new Map<SubscriptionRecord, Promise<void>>();
  private readonly now: () => number;
  /** The state each record had when last saved or loaded: another collector's change differs. */
  private readonly stored = new WeakMap<SubscriptionRecord, string>();
  /**
   * Subscriptions inserted by this collector, numbered in the order their inserts completed: a
   * store round's listing read before an insert completed may not show it, and must not delete it.
   */
  private readonly insertedAs = new WeakMap<SubscriptionRecord, number>();
  private inserts = 0;
  constructor(private readonly deps: ForecastingDeps) {
    this.now = deps.now ?? Date.now;
  }

  /** Loads the stored subscriptions. */
  async open(): Promise<void> {
    for (const r of await this.deps.store.all()) {
      this.tenantSubs(r.tenant).set(r.metricId, r);
      this.stored.set(r, stateOf(r));
    }
  }

  private tenantSubs(tenant: string): Map<string, SubscriptionRecord> {
    let m = this.subs.get(tenant);
    if (!m) this.subs.set(tenant, (m = new Map()));
    return m;
  }

  list(tenant: string): SubscriptionRecord[] {
    return [...(this.subs.get(tenant)?.values() ?? [])].sort((a, b) => (a.metricId < b.metricId ? -1 : 1));
  }

  get(tenant: string, metricId: string): SubscriptionRecord {
    const r = this.subs.get(tenant)?.get(metricId);
    if (!r) throw new SubscriptionNotFoundError(tenant, metricId);
    return r;
  }

  private persist(r: SubscriptionRecord): Promise<void> {
    const previous = this.saving.get(r) ?? Promise.resolve();
    const next = previous.then(async () => {
      // A subscription deleted (or replaced) meanwhile is not written back.
      if (this.subs.get(r.tenant)?.get(r.metricId) !== r) return;
      const state = stateOf(r);
      const before = r.revision;
      await this.deps.store.save(r);
      // A store counting saves has given the record its new revision.
      this.stored.set(r, r.revision !== before ? stateOf(r) : state);
    });
    // Settles either way: a failed save (reported to the caller through `next`) must not stop
    // the saves queued after it.
    const tracked = next.then(
      () => {},
      () => {},
    );
    void tracked.then(() => {
      if (this.saving.get(r) === tracked) this.saving.delete(r);
    });
    this.saving.set(r, tracked);
    return next;
  }

  /** Subscribes the metric and learns the history the metrics store holds for it. */
  async subscribe(tenant: string, bp: Blueprint): Promise<SubscriptionRecord> {
    if (this.subs.get(tenant)?.has(bp.metricId)) throw new SubscriptionExistsError(tenant, bp.metricId);
    const r: SubscriptionRecord = {
      tenant,
      metricId: bp.metricId,
      collectionInterval: bp.collectionInterval,
      forecaster: newForecaster(),
      createdAt: this.now(),
    };
    // Visible (and holding points back) at once, so nothing written meanwhile is missed.
    this.tenantSubs(tenant).set(bp.metricId, r);
    this.backfilling.set(r, []);
    let inserted = false;
    try {
      inserted = await this.deps.store.insert(r);
    } finally {
      if (!inserted) {
        this.tenantSubs(tenant).delete(bp.metricId);
        this.backfilling.delete(r);
      }
    }
    if (!inserted) throw new SubscriptionExistsError(tenant, bp.metricId);
    this.stored.set(r, stateOf(r));
    this.insertedAs.set(r, ++this.inserts);
    // Elsewhere than on the tenant's lease holder, the holder learns its history (syncWithStore).
    const lease = this.deps.ownership?.owns(tenant);
    if (this.deps.ownership && !lease) {
      this.backfilling.delete(r);
      return r;
    }
    await this.backfill(r);
    return r;
  }

  /**
   * Learns the newest stored points after what the forecaster has learned. Points committed
   * (or sent to learn) while the history is read are held back and learned after it, so none
   * is lost to the rule that a forecaster ignores points older than its newest.
   */
  private async backfill(r: SubscriptionRecord): Promise<void> {
    const held = this.backfilling.get(r) ?? [];
    this.backfilling.set(r, held);
    let history: LearnPoint[] = [];
    try {
      if (this.deps.points) {
        const limit = HISTORY_WINDOWS * r.forecaster.config.windowSize;
        history = await readHistory(this.deps.points, r.tenant, r.metricId, limit, r.forecaster.lastTimestamp);
      }
    } catch (e) {
      this.deps.log.warn("could not read metric history for forecasting", { tenant: r.tenant, metric: r.metricId, err: String(e) });
    } finally {
      this.backfilling.delete(r);
    }
    if (history.length + held.length === 0) return;
    learn(r.forecaster, [...history, ...held]);
    await this.persist(r);
  }

  /** At start: learns what was stored while the collector was not learning (or crashed before saving). */
  async catchUp(): Promise<void> {
    if (this.deps.ownership) return; // syncWithStore's rounds do it
    for (const tenantSubs of this.subs.values()) for (const r of tenantSubs.values()) await this.backfill(r);
  }

  /**
   * Applies `change` to the subscription and saves it; if the save fails the subscription is
   * put back as it was, so memory never runs ahead of what the store holds for a request.
   */
  private async changeAndSave(r: SubscriptionRecord, change: () => void): Promise<void> {
    const before = { collectionInterval: r.collectionInterval, forecaster: structuredClone(r.forecaster) };
    change();
    try {
      await this.persist(r);
    } catch (e) {
      r.collectionInterval = before.collectionInterval;
      r.forecaster = before.forecaster;
      throw e;
    }
  }

  async update(tenant: string, metricId: string, u: MetricUpdate): Promise<void> {
    const r = this.get(tenant, metricId);
    await this.changeAndSave(r, () => {
      if (u.collectionInterval !== undefined) r.collectionInterval = u.collectionInterval;
      reconfigure(r.forecaster, u);
    });
  }

  async unsubscribe(tenant: string, metricId: string): Promise<void> {
    this.get(tenant, metricId);
    await this.deps.store.delete(tenant, metricId);
    this.subs.get(tenant)?.delete(metricId);
  }

  async learn(tenant: string, metricId: string, points: LearnPoint[]): Promise<void> {
    const r = this.get(tenant, metricId);
    const held = this.backfilling.get(r);
    if (held) {
      for (const p of points) held.push(p);
      return;
    }
    await this.changeAndSave(r, () => learn(r.forecaster, points));
  }

  /** `ahead` points after the newest learned one; throws ModelNotReadyError before a model exists. */
  forecast(tenant: string, metricId: string, ahead: number): ForecastPoint[] {
    const r = this.get(tenant, metricId);
    const step = r.collectionInterval !== undefined ? r.collectionInterval * 1000 : typicalStep(r.forecaster);
    // A model needs at least three points, so with one there is always a typical step.
    return forecast(r.forecaster, ahead, step ?? 1000);
  }

  /**
   * One round of collectors sharing the database: subscriptions created, changed, learned or
   * deleted by another collector are taken as stored, and those of tenants this collector
   * holds learn the points stored since their newest (by whichever collector), then are saved.
   * A holder's takeover thus starts from its predecessor's last save.
   */
  async syncWithStore(): Promise<void> {
    const own = this.deps.ownership;
    if (!own) return;
    const store = this.deps.store;
    // Inserts completed after this point may be missing from the listing below.
    const listedAfter = this.inserts;
    // Where the store counts saves, only the subscriptions changed elsewhere are read whole.
    const listed: { tenant: string; metricId: string; state: string; record?: SubscriptionRecord }[] =
      store.revisions && store.get
        ? (await store.revisions()).map((v) => ({ ...v, state: `#${v.revision}` }))
        : (await store.all()).map((record) => ({ tenant: record.tenant, metricId: record.metricId, state: stateOf(record), record }));
    const present = new Set<string>();
    for (const s of listed) {
      present.add(`${s.tenant}\u0000${s.metricId}`);
      let r = this.subs.get(s.tenant)?.get(s.metricId);
      // A change of this collector's own in flight: its save is newer than the row read.
      if (r && (this.saving.has(r) || this.backfilling.has(r))) continue;
      if (!r || this.stored.get(r) !== s.state) {
        const fresh = s.record ?? (await store.get?.(s.tenant, s.metricId));
        if (!fresh) continue; // deleted meanwhile
        const now = this.subs.get(s.tenant)?.get(s.metricId);
        if (now !== r) continue; // subscribed or deleted here while it was read
        this.tenantSubs(s.tenant).set(s.metricId, fresh);
        this.stored.set(fresh, stateOf(fresh));
        r = fresh;
      }
      if (!own.owns(s.tenant)) continue;
      await this.backfill(r);
    }
    for (const [tenant, tenantSubs] of this.subs) {
      for (const [metricId, r] of tenantSubs) {
        if (present.has(`${tenant}\u0000${metricId}`) || this.saving.has(r) || this.backfilling.has(r)) continue;
        if (!this.stored.has(r)) continue; // being inserted by subscribe
        if ((this.insertedAs.get(r) ?? 0) > listedAfter) continue; // inserted while the listing was read
        tenantSubs.delete(metricId);
      }
    }
  }

  /** Waits for the saves in flight (before the store closes). */
  async flush(): Promise<void> {
    await Promise.allSettled([...this.saving.values()]);
  }

  /** PointsBus listener: subscribed gauges and counters learn the points just committed. */
  readonly onPoints = (p: WrittenPoints): void => {
    // Several collectors: the tenant's holder learns in syncWithStore's rounds only, in the
    // order the points were stored. Learning its own points at once would get ahead of older
    // points another collector stored meanwhile, which a forecaster then ignores for good.
    if (this.deps.ownership) return;
    const tenantSubs = this.subs.get(p.tenant);
    if (!tenantSubs) return;
    for (const w of p.writes) {
      const r = tenantSubs.get(w.id);
      if (!r || !learnedType.has(w.type)) continue;
      const points: LearnPoint[] = [];
      // Staleness markers are no values to learn from.
      for (const pt of w.points) if (typeof pt.value === "number" && !isStaleMarker(pt.value)) points.push({ timestamp: pt.timestamp, value: pt.value });
      const held = this.backfilling.get(r);
      if (held) {
        for (const pt of points) held.push(pt);
        continue;
      }
      // The points are committed to the metrics store: a state that could not be saved (a full
      // disk is logged once by the storage health) is relearned from them after a restart.
      learn(r.forecaster, points);
      this.persist(r).catch((e) => {
        if (storageFailure(e) === undefined) this.deps.log.error("could not save forecaster state", { tenant: r.tenant, metric: r.metricId, err: String(e) });
      });
    }
  };
}
