import type { Logger } from "../../src/log/logger.ts";

export interface AckWatchOptions {
  /** Since when the oldest batch in flight has waited with no ack (undefined: nothing waits). */
  waitingSince(): number | undefined;
  /** When the last ack arrived. */
  lastAckAt(): number | undefined;
  inFlightBatches(): number;
  linkReady(): boolean;
  warnAfterMs: number;
  url: string;
  topicPrefix: string;
  log: Logger;
  now?: () => number;
}

/**
 * Warns when the agent is connected but the collector acknowledges nothing: batches go out and
 * nothing comes back (a wrong broker, no collector consuming it, another topic prefix, or a
 * collector that cannot commit). Repeats every `warnAfterMs` while it lasts; says when acks resume.
 */
export function watchAcks(o: AckWatchOptions): { stop(): void } {
  const now = o.now ?? Date.now;
  let warnedAt: number | undefined;
  let stalledSince: number | undefined;
  const check = () => {
    const t = now();
    if (warnedAt !== undefined && stalledSince !== undefined && (o.lastAckAt() ?? 0) > warnedAt) {
      o.log.info("the collector acknowledges again", { afterSeconds: Math.round((t - stalledSince) / 1000) });
      warnedAt = stalledSince = undefined;
    }
    const since = o.linkReady() ? o.waitingSince() : undefined;
    if (since === undefined || t - since < o.warnAfterMs) return;
    if (warnedAt !== undefined && t - warnedAt < o.warnAfterMs) return;
    stalledSince ??= since;
    warnedAt = t;
    o.log.warn("connected to the broker, but the collector has acknowledged nothing: is a collector consuming this broker, with the same topic prefix?", {
      url: o.url,
      topicPrefix: o.topicPrefix,
      waitingSeconds: Math.round((t - since) / 1000),
      batchesWaiting: o.inFlightBatches(),
    });
  };
  const timer = setInterval(check, Math.max(50, Math.min(5000, o.warnAfterMs / 4)));
  timer.unref?.();
  return { stop: () => clearInterval(timer) };
}
