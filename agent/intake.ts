import type { Logger } from "../src/log/logger.ts";
import { createLogThrottle } from "../src/log/throttle.ts";
import type { MetricWrite } from "../src/metrics/model.ts";
import type { SeriesDefinition } from "../src/protocol/definitions-chunk.ts";
import { type ClockWindow, pointsOutsideWindow } from "../src/protocol/clock-window.ts";
import type { Counter } from "../src/telemetry/registry.ts";

export interface IntakeCounters {
  accepted: Counter;
  clockSkew: Counter;
}

/**
 * The one way points enter the agent (local write API, its own metrics, every input):
 * flags timestamps far from the agent's clock, then buffers. Resolves after the commit.
 */
export class Intake {
  private readonly throttle = createLogThrottle(60_000);

  constructor(
    private readonly buffer: { append(w: MetricWrite[], definitions?: readonly SeriesDefinition[]): Promise<void> },
    private readonly window: ClockWindow,
    private readonly counters: IntakeCounters,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Returns how many points were buffered and how many of them were flagged for their
   * timestamp. `definitions` (the tags of series named the Prometheus way) are buffered with
   * the points, just before them.
   */
  async accept(writes: MetricWrite[], definitions?: readonly SeriesDefinition[]): Promise<{ flagged: number; points: number }> {
    let points = 0;
    for (const w of writes) points += w.points.length;
    if (points === 0 && !definitions?.length) return { flagged: 0, points };
    const out = pointsOutsideWindow(writes, this.now(), this.window);
    await this.buffer.append(writes, definitions);
    this.counters.accepted.inc(points);
    if (out.count > 0) {
      this.counters.clockSkew.inc(out.count);
      const t = this.throttle("skew");
      if (t.pass) {
        this.log.warn("points with timestamps far from the agent clock (kept, flagged)", {
          points: out.count,
          metric: out.example?.id,
          timestamp: out.example ? new Date(out.example.timestamp).toISOString() : undefined,
          suppressedWarnings: t.suppressed || undefined,
        });
      }
    }
    return { flagged: out.count, points };
  }
}
