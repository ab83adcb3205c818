import type { Telemetry } from "../../src/telemetry/registry.ts";

/** Counters of MQTT ingest, registered in the collector's telemetry. */
export function registerIngestCounters(t: Telemetry) {
  return {
    messages: t.counter("outpost_collector_messages_received_total", "MQTT messages received from agents"),
    rejected: t.counter("outpost_collector_messages_rejected_total", "messages refused as malformed or invalid (logged; the stream goes on)"),
    batches: t.counter("outpost_collector_batches_stored_total", "data batches committed to the store"),
    points: t.counter("outpost_collector_points_stored_total", "data points committed from agents' batches"),
    clockSkew: t.counter("outpost_collector_points_clock_skew_total", "stored points whose timestamps were far from the collector clock (flagged)"),
    storeFailures: t.counter("outpost_collector_store_failures_total", "batches the store failed to commit (not acked, so the agent resends)"),
    acks: t.counter("outpost_collector_acks_sent_total", "acks published to agents"),
    presence: t.counter("outpost_collector_presence_changes_total", "agent status messages recorded as availability"),
  };
}

export type IngestCounters = ReturnType<typeof registerIngestCounters>;
