import { join } from "node:path";
import type { SQL } from "bun";
import type { OptionValues } from "../../src/config/options.ts";
import type { Logger } from "../../src/log/logger.ts";
import type { Status } from "../../src/protocol/control-messages.ts";
import { createEncoder } from "../../src/protocol/cbor.ts";
import { releasePublicKeyOf } from "../../src/release/key-option.ts";
import type { StorageHealth } from "../../src/sqlite/storage-health.ts";
import { PostgresReleaseStore } from "../store/releases/postgres.ts";
import { SqliteReleaseStore } from "../store/releases/sqlite.ts";
import { ReleaseService } from "./releases.ts";
import { type DownloadPlace, type Publish, RolloutEngine } from "./rollout-engine.ts";
import { FeedUpgrades } from "./upgrades.ts";

/** How often running rollouts look again without a report (feeds whose outcome is overdue fail). */
const TICK_MS = 15_000;

export interface Upgrades {
  releases: ReleaseService;
  rollouts: RolloutEngine;
  feeds: FeedUpgrades;
  /** Where agents download: set once the HTTP server listens. */
  setDownloadPlace(p: DownloadPlace): void;
  /** The broker is there (MQTT ingest started). */
  attach(publish: Publish): Promise<void>;
  /** Every agent status (collector/ingest/message-handler.ts). */
  onStatus(tenant: string, feed: string, s: Status): void;
  close(): Promise<void>;
}

/** Agent releases and rollouts (docs/fleet.md, "Upgrades"): their store, service and engine. */
export function startUpgrades(o: { values: OptionValues; dataDir: string; sql?: SQL; synchronous: "FULL" | "NORMAL"; health?: StorageHealth; log: Logger }): Upgrades {
  const log = o.log.child("fleet");
  const store = o.sql ? new PostgresReleaseStore({ sql: o.sql, health: o.health }) : new SqliteReleaseStore({ dataDir: o.dataDir, synchronous: o.synchronous, log, health: o.health });
  const publicKey = releasePublicKeyOf(o.values);
  let place: DownloadPlace = { tls: false };
  const external = o.values["external-url"] === undefined ? undefined : String(o.values["external-url"]).trim() || undefined;
  const rollouts = new RolloutEngine({ store, prefix: String(o.values["topic-prefix"] ?? "svc"), enc: createEncoder(), download: () => place, log });
  const releases = new ReleaseService({
    store,
    publicKey: () => publicKey,
    spoolDir: join(o.dataDir, "release-uploads"),
    inUse: async (version) => (await store.activeRollouts()).find((r) => r.version === version)?.id,
    log,
  });
  let timer: ReturnType<typeof setInterval> | undefined;
  return {
    releases,
    rollouts,
    feeds: new FeedUpgrades(store),
    setDownloadPlace(p) {
      place = { ...p, externalUrl: external };
    },
    async attach(publish) {
      await rollouts.attach(publish);
      timer = setInterval(() => void rollouts.tick().catch((e) => log.error("rollouts' look failed", { err: (e as Error).message })), TICK_MS);
    },
    onStatus(tenant, feed, s) {
      rollouts.onStatus(tenant, feed, s).catch((e) => log.error("taking an agent's report failed", { tenant, feed, err: (e as Error).message }));
    },
    async close() {
      clearInterval(timer);
      await store.close();
    },
  };
}
