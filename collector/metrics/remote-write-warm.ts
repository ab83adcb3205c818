import type { Logger } from "../../src/log/logger.ts";
import type { MetricsStore } from "../store/metrics/types.ts";
import type { RemoteWriteColumns } from "./foreign-writes.ts";

/**
 * Fills remote write's series cache from the stored series of every tenant, once the store is
 * open and before requests come (RemoteWriteColumns.warm): after a restart the senders' backlog
 * finds its series known instead of mapping each anew. Logs what it took.
 */
export async function warmRemoteWrite(cache: RemoteWriteColumns, store: MetricsStore, log: Logger): Promise<void> {
  const started = performance.now();
  let taken = 0;
  for (const t of await store.listTenants()) {
    // Past what warm() fills, no more tenants' series are listed for nothing.
    if (!cache.roomToWarm()) break;
    taken += cache.warm(t.id, await store.listSeries(t.id), store.definitionsVersion?.());
  }
  if (taken > 0) log.info("remote write's series cache filled from the store", { series: taken, ms: Math.round(performance.now() - started) });
}
