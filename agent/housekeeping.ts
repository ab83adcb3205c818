import type { Logger } from "../src/log/logger.ts";
import type { createDecoder } from "../src/protocol/cbor.ts";
import { storageFailure } from "../src/sqlite/storage-failure.ts";
import { DEFAULT_COMPACTION } from "./buffer/compaction.ts";
import type { PointBuffer } from "./buffer/point-buffer.ts";
import type { Forwarder } from "./forward/forwarder.ts";
import type { SendPlanner } from "./forward/send-planner.ts";
import type { HostMonitoring } from "./host-monitoring.ts";
import type { LocalAlerting } from "./local-alerting.ts";
import type { AgentStorage } from "./storage.ts";
import type { AgentCounters } from "./telemetry.ts";

export interface HousekeepingParts {
  storage: AgentStorage;
  buffer: PointBuffer;
  dec: ReturnType<typeof createDecoder>;
  forwarder: Forwarder;
  planner: SendPlanner;
  link: { readonly ready: boolean };
  local: LocalAlerting;
  host: HostMonitoring;
  counters: AgentCounters;
  /** Buffers the agent's own metrics of this moment. */
  ownMetrics: () => Promise<unknown>;
  log: Logger;
}

/**
 * The agent's work once an interval: storage health, the buffer's age limit and compaction,
 * local alerting's and the inventory's timers, its own metrics, and a progress line while data
 * waits for the broker.
 */
export function startHousekeeping(intervalMs: number, p: HousekeepingParts): { stop(): void } {
  let lastProgress = 0;
  let lastCompaction = 0;
  const tick = setInterval(() => {
    p.storage.tick();
    p.buffer.expire();
    // Points that waited over a minute (an outage) are kept compressed from then on. Once a
    // minute: each pass re-encodes the hour's merged row (about 10 ms for a host's hour).
    if (Date.now() - lastCompaction >= DEFAULT_COMPACTION.minAgeMs) {
      lastCompaction = Date.now();
      p.buffer.compact(p.dec, DEFAULT_COMPACTION, p.forwarder.inFlightRanges());
    }
    p.local.expire();
    p.host.inventory?.tick();
    p.ownMetrics().catch((e) => {
      // A full disk is logged once by the storage health, not every tick.
      if (storageFailure(e) === undefined) p.log.error("buffering own metrics failed", { err: e });
    });
    const d = p.buffer.depth;
    // Progress while data waits: at most every 30 s, so a long outage is visible but quiet.
    if (d.points > 0 && (!p.link.ready || p.planner.replaying) && Date.now() - lastProgress >= 30_000) {
      lastProgress = Date.now();
      p.log.info(p.link.ready ? "replaying backlog" : "broker unreachable; buffering", { bufferedPoints: d.points, bufferedBytes: d.bytes, acked: p.counters.pointsAcked.value });
    }
  }, intervalMs);
  return { stop: () => clearInterval(tick) };
}
