import { Telemetry } from "../src/telemetry/registry.ts";

/** The agent's own counters; gauges are registered by their owners when wired. */
export function createAgentTelemetry() {
  const t = new Telemetry();
  const c = {
    accepted: t.counter("outpost_agent_points_accepted_total", "points accepted into the buffer (local writes and own metrics)"),
    clockSkew: t.counter("outpost_agent_points_clock_skew_total", "accepted points whose timestamps were far from the agent clock (flagged, still sent)"),
    droppedSize: t.counter("outpost_agent_points_dropped_size_total", "buffered points dropped, oldest first, because the buffer reached its size limit"),
    droppedAge: t.counter("outpost_agent_points_dropped_age_total", "buffered points dropped because they reached the age limit"),
    pointsRejected: t.counter("outpost_agent_points_dropped_rejected_total", "points dropped because the collector refused their batch as invalid"),
    batchesSent: t.counter("outpost_agent_batches_sent_total", "batches published to the broker (first attempts)"),
    batchesResent: t.counter("outpost_agent_batches_resent_total", "batches published again for want of an ack"),
    batchesAcked: t.counter("outpost_agent_batches_acked_total", "batches the collector acknowledged after committing them"),
    pointsAcked: t.counter("outpost_agent_points_acked_total", "points the collector acknowledged after committing them"),
    acksInvalid: t.counter("outpost_agent_acks_invalid_total", "ack messages that could not be decoded"),
  };
  return { telemetry: t, counters: c };
}

export type AgentCounters = ReturnType<typeof createAgentTelemetry>["counters"];
