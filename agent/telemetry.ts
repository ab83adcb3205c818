import { Telemetry } from "../src/telemetry/registry.ts";
import type { PointBuffer } from "./buffer/point-buffer.ts";
import type { Forwarder } from "./forward/forwarder.ts";

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

/** Gauges of the buffer, the local window and the forwarding to the broker. */
export function registerForwardingGauges(telemetry: Telemetry, o: { buffer: PointBuffer; forwarder: Forwarder; link: { readonly ready: boolean } }): void {
  const { buffer, forwarder, link } = o;
  telemetry.gauge("outpost_agent_buffer_points", "points in the buffer, sent or not, awaiting the collector's ack", () => buffer.depth.points);
  telemetry.gauge("outpost_agent_buffer_bytes", "bytes the buffered points count against --buffer-max-bytes", () => buffer.depth.bytes);
  telemetry.gauge("outpost_agent_history_points", "acknowledged points kept for local reads ([agent.history] window)", () => buffer.history.depth.points);
  telemetry.gauge("outpost_agent_history_bytes", "bytes the local history counts against --buffer-max-bytes", () => buffer.history.depth.bytes);
  telemetry.gauge("outpost_agent_buffer_file_bytes", "size of the buffer's database file", () => buffer.fileBytes());
  telemetry.gauge("outpost_agent_buffer_oldest_age_seconds", "how long the oldest buffered point has waited", () => {
    const at = buffer.oldestBufferedAt();
    return at === undefined ? 0 : Math.max(0, (Date.now() - at) / 1000);
  });
  telemetry.gauge("outpost_agent_batches_in_flight", "batches sent and awaiting the collector's ack", () => forwarder.inFlightBatches);
  telemetry.gauge("outpost_agent_broker_connected", "1 while connected to the broker", () => (link.ready ? 1 : 0));
}
