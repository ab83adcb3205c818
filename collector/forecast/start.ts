import type { Logger } from "../../src/log/logger.ts";
import type { Ownership } from "../../src/partitions.ts";
import type { StorageHealth } from "../../src/sqlite/storage-health.ts";
import type { PointsBus } from "../events/points-bus.ts";
import { SqliteForecastStore } from "../store/forecast/sqlite.ts";
import type { ForecastStore } from "../store/forecast/types.ts";
import type { PointSource } from "./history.ts";
import { ForecastingService } from "./service.ts";

export interface ForecastingOptions {
  dataDir: string;
  bus: PointsBus;
  log: Logger;
  /** The metrics store, once there is one: history on subscribe and catch-up at start. */
  points?: PointSource;
  synchronous?: "FULL" | "NORMAL";
  health?: StorageHealth;
  /** Another store than forecast.db in the data folder (PostgreSQL). */
  store?: ForecastStore;
  /**
   * Collectors sharing a database: learning is the tenant's lease holder's, from the stored
   * points, every `syncMs` (default 1 s); the others reload what it saved as often.
   */
  cluster?: { ownership: Ownership; syncMs?: number };
}

export interface Forecasting {
  service: ForecastingService;
  /** Loads the subscriptions, starts following the bus, then learns what was stored meanwhile. */
  open(): Promise<void>;
  close(): Promise<void>;
}

/** The forecasting engine of the collector: its store, its service, its bus subscription. */
export function createForecasting(opts: ForecastingOptions): Forecasting {
  const store = opts.store ?? new SqliteForecastStore({ dataDir: opts.dataDir, synchronous: opts.synchronous, log: opts.log, health: opts.health });
  const service = new ForecastingService({ store, points: opts.points, log: opts.log, ownership: opts.cluster?.ownership });
  let unsubscribe: (() => void) | undefined;
  let timer: ReturnType<typeof setInterval> | undefined;
  let round: Promise<void> | undefined;
  let lastError = "";
  const sync = () => {
    round ??= service
      .syncWithStore()
      .then(
        () => {
          lastError = "";
        },
        (e) => {
          const msg = String(e);
          if (msg !== lastError) opts.log.warn("forecasting round failed; retrying", { err: msg });
          lastError = msg;
        },
      )
      .finally(() => {
        round = undefined;
      });
    return round;
  };
  return {
    service,
    async open() {
      await service.open();
      unsubscribe = opts.bus.subscribe(service.onPoints);
      await service.catchUp();
      if (opts.cluster) {
        timer = setInterval(() => void sync(), opts.cluster.syncMs ?? 1000);
        timer.unref?.();
      }
    },
    async close() {
      if (timer) clearInterval(timer);
      await round;
      unsubscribe?.();
      await service.flush();
      await store.close();
    },
  };
}
