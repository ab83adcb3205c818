import type { SQL } from "bun";
import type { Lease } from "../../src/partitions.ts";
import type { LeaseKeeper } from "../../src/postgres/leases.ts";
import { DefinitionSync } from "../cluster/definition-sync.ts";
import { WatchSync } from "../cluster/watch-sync.ts";
import { EngineRelay } from "../cluster/engine-relay.ts";
import type { Logger } from "../../src/log/logger.ts";
import type { StorageHealth } from "../../src/sqlite/storage-health.ts";
import type { PointsBus } from "../events/points-bus.ts";
import { SqliteAlertsStore } from "../store/alerts/sqlite.ts";
import type { AlertsStore } from "../store/alerts/types.ts";
import { defaultPlugins, type PluginOptions } from "./actions/registry.ts";
import { AlertingService } from "./service.ts";

export interface AlertingOptions {
  dataDir: string;
  bus: PointsBus;
  log: Logger;
  synchronous?: "FULL" | "NORMAL";
  plugins?: PluginOptions;
  health?: StorageHealth;
  /** Another store than alerts.db in the data folder (PostgreSQL). */
  store?: AlertsStore;
  /** Collectors sharing the database: each tenant's triggers are evaluated by its lease's holder. */
  cluster?: { sql: SQL; keeper: LeaseKeeper };
}

export interface Alerting {
  service: AlertingService;
  /** Loads the triggers, then starts following the committed metric points. */
  open(): Promise<void>;
  close(): Promise<void>;
}

/** The alerting service of the collector: its store (alerts.db unless given), its engine, its bus subscription. */
export function createAlerting(opts: AlertingOptions): Alerting {
  const store = opts.store ?? new SqliteAlertsStore({ dataDir: opts.dataDir, synchronous: opts.synchronous, log: opts.log, health: opts.health });
  const keeper = opts.cluster?.keeper;
  const fencing = keeper && { leaseOf: (t: string) => keeper.owns(t), lost: (l: Lease) => keeper.lost(l) };
  const service = new AlertingService({ store, plugins: defaultPlugins(opts.plugins), log: opts.log, fencing });
  let unsubscribe: (() => void) | undefined;
  let relay: EngineRelay | undefined;
  let sync: DefinitionSync | undefined;
  let watchSync: WatchSync | undefined;
  return {
    service,
    async open() {
      const loadedUnder = keeper?.leases() ?? [];
      await service.open(keeper && { owns: (t) => keeper.owns(t) !== undefined, ownsEverything: keeper.leases().length === keeper.partitions });
      if (opts.cluster) {
        const feed = { watchedData: service.data.watchedData.bind(service.data), evaluate: service.evaluateUnder.bind(service), adopt: service.adoptTenants.bind(service) };
        relay = new EngineRelay({ ...opts.cluster, feed, log: opts.log.child("relay") });
        await relay.start(loadedUnder);
        sync = new DefinitionSync({ sql: opts.cluster.sql, owner: opts.cluster.keeper.owner, definitions: service, log: opts.log.child("definitions") });
        await sync.start();
        watchSync = new WatchSync({ sql: opts.cluster.sql, owner: opts.cluster.keeper.owner, watches: service, log: opts.log.child("watches") });
        await watchSync.start();
      }
      unsubscribe = opts.bus.subscribe(relay ? relay.onPoints : service.data.onPoints);
    },
    async close() {
      unsubscribe?.();
      await watchSync?.close();
      await sync?.close();
      await relay?.close();
      await service.close();
    },
  };
}
