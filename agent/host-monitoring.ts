import type { Encoder } from "cbor-x";
import type { OptionValues } from "../src/config/options.ts";
import type { Logger } from "../src/log/logger.ts";
import type { MetricWrite } from "../src/metrics/model.ts";
import { OUTPOST_VERSION } from "../src/config/version.ts";
import { encodeInventory } from "../src/protocol/inventory-messages.ts";
import { createHostInventory } from "./inventory/host-inventory.ts";
import type { InputsInventory } from "./inventory/host-structure.ts";
import { InventorySync } from "./inventory/inventory-sync.ts";
import { hostMetricsConfig, hostReaderFor } from "./inputs/host/options.ts";
import { procFiles } from "./inputs/host/proc-files.ts";
import { startHostSource } from "./inputs/host/host-source.ts";
import type { HostSeries } from "./inputs/host/series.ts";

export interface HostMonitoring {
  /** Present when the inventory is synced. */
  inventory?: InventorySync;
  /** New include/exclude globs and excluded filesystem types (SIGHUP); the inventory follows. */
  reloadFilters(values: OptionValues): void;
  /** A new collection interval (SIGHUP, remote configuration): sampling restarts on its grid. */
  setInterval(values: OptionValues): void;
  stop(): void;
}

/**
 * Host metrics into the intake, and the host's inventory to the collector (when both
 * `--host-metrics` and `--inventory` are on: the inventory describes what is collected).
 */
export function startHostMonitoring(o: {
  values: OptionValues;
  feed: string;
  accept(writes: MetricWrite[]): Promise<unknown>;
  publishInventory(payload: Uint8Array): Promise<void>;
  enc: Encoder;
  retryMs: number;
  log: Logger;
  /** The inputs and their targets' health, listed in the inventory. */
  inputs?: () => InputsInventory | undefined;
  /** The agent's identity, sent with the inventory (docs/fleet.md). */
  instance?: string;
}): HostMonitoring {
  const config = hostMetricsConfig(o.values);
  if (!config.enabled) {
    o.log.info("host metrics disabled (--host-metrics false)");
    return { reloadFilters() {}, setInterval() {}, stop() {} };
  }
  const log = o.log.child("host");
  let current = hostReaderFor(o.feed, config, (m) => log.warn(m));
  const reader = { sample: (t: number) => current.sample(t) };
  let inventory: InventorySync | undefined;
  let onSeries: ((series: readonly HostSeries[]) => void) | undefined;
  if (o.values.inventory !== false) {
    const host = createHostInventory({
      feed: o.feed,
      proc: procFiles(config.procRoot),
      collectionIntervalSeconds: Math.max(1, Math.round(config.intervalMs / 1000)),
      agentVersion: OUTPOST_VERSION,
    });
    const sync = new InventorySync({
      send: (s) => o.publishInventory(encodeInventory(o.enc, { digest: s.digest, structure: s.json, instance: o.instance })),
      retryMs: o.retryMs,
      log: o.log.child("inventory"),
    });
    inventory = sync;
    onSeries = (series) => sync.offer(host.structureFor(series, o.inputs?.()));
  }
  const start = (intervalMs: number) => startHostSource({ reader, intervalMs, accept: o.accept, sampled: onSeries && ((s) => onSeries(s.series)), log });
  let intervalMs = config.intervalMs;
  let source = start(intervalMs);
  return {
    inventory,
    reloadFilters(values) {
      const next = hostMetricsConfig(values);
      current = hostReaderFor(o.feed, { ...config, include: next.include, exclude: next.exclude, excludedFsTypes: next.excludedFsTypes }, (m) => log.warn(m));
      log.info("host metric filters reloaded", { include: next.include, exclude: next.exclude });
    },
    setInterval(values) {
      const next = hostMetricsConfig(values).intervalMs;
      if (next === intervalMs) return;
      source.stop();
      intervalMs = next;
      source = start(next);
      log.info("host metrics interval changed", { intervalMs: next });
    },
    stop: () => source.stop(),
  };
}
