import { completeData, completeEvent } from "../../src/alerts/complete.ts";
import type { EngineData } from "../../src/alerts/engine/evaluate.ts";
import { isStaleMarker } from "../../src/prometheus/staleness.ts";
import type { DataInput, EventInput } from "../../src/alerts/schemas.ts";
import type { WrittenPoints } from "../events/points-bus.ts";
import type { AlertingContext } from "./context.ts";
import type { DataDrivenMembers } from "./data-driven.ts";

/**
 * Committed metric points as engine data: dataId is the metric id (whatever its type), the
 * value the point's value; availability reads UP, DOWN or UNKNOWN. Points carry no source, so
 * they feed triggers without a source.
 */
export function pointsToData(p: WrittenPoints, watched: (id: string) => boolean = () => true): EngineData[] {
  const out: EngineData[] = [];
  const c = p.columns;
  if (c) {
    // Columns (gauges or counters): no object per metric for the many no trigger watches
    // (issue 28: 1,000 a body under HTTP ingest, the main thread's largest garbage).
    for (let k = 0, o = 0; k < c.ids.length; o += c.counts[k]!, k++) {
      const id = c.ids[k]!;
      if (!watched(id)) continue;
      for (let i = o; i < o + c.counts[k]!; i++) {
        const value = c.values[i]!;
        if (!isStaleMarker(value)) out.push({ tenantId: p.tenant, id, timestamp: c.ts[i]!, value });
      }
    }
    return out;
  }
  for (const w of p.writes) {
    if (!watched(w.id)) continue;
    const availability = w.type === "availability";
    for (const pt of w.points) {
      // A staleness marker ends a Prometheus series; it is no value to evaluate.
      if (typeof pt.value === "number" && isStaleMarker(pt.value)) continue;
      out.push({
        tenantId: p.tenant,
        id: w.id,
        timestamp: pt.timestamp,
        value: availability ? String(pt.value).toUpperCase() : pt.value,
      });
    }
  }
  return out;
}

/** Data and external events evaluated by the engine; only what they fire is stored. */
export class DataFeed {
  constructor(
    private readonly ctx: AlertingContext,
    private readonly dataDriven: DataDrivenMembers,
  ) {}

  /**
   * POST /data: resolves once what the data fired is stored. Data from a source a data-driven
   * group has no member for creates that member first, so the data is evaluated by it.
   */
  async sendData(tenantId: string, inputs: readonly DataInput[]): Promise<void> {
    const now = this.ctx.now();
    const data = inputs.map((d) => completeData(d, tenantId, now));
    await this.dataDriven.ensureMembers(data);
    this.ctx.engine.sendData(data);
    await this.ctx.serial.idle();
  }

  /** POST /events/data: the events are evaluated, never stored. */
  async sendEvents(tenantId: string, inputs: readonly EventInput[]): Promise<void> {
    const now = this.ctx.now();
    this.ctx.engine.sendEvents(inputs.map((e) => completeEvent(e, tenantId, now)));
    await this.ctx.serial.idle();
  }

  /** The PointsBus listener: evaluation happens now, storage of what fires later, in order. */
  readonly onPoints = (p: WrittenPoints): void => {
    const data = this.watchedData(p);
    if (data.length > 0) this.ctx.engine.sendData(data);
  };

  /** Committed points as engine data, only of the metrics some trigger watches. */
  watchedData(p: WrittenPoints): EngineData[] {
    // Most metrics feed no trigger: skip them per metric rather than per point.
    const engine = this.ctx.engine;
    return pointsToData(p, (id) => engine.watches(p.tenant, id));
  }
}
