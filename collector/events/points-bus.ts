import type { MetricWrite } from "../../src/metrics/model.ts";
import type { WriteColumns } from "../../src/metrics/write-columns.ts";

/** Points that have just been committed to the metrics store. */
export interface WrittenPoints {
  tenant: string;
  writes: MetricWrite[];
  /**
   * The same points as columns, when they were written as columns (a JSON worker's body): a
   * listener that looks at few metrics reads these instead of `writes`, whose objects (one per
   * metric) are then never made. Valid only during the call, as `writes`' points are.
   */
  columns?: WriteColumns;
  /** How many points the writes hold, when the publisher counted them. */
  points?: number;
  /** Where they came from: "http", "mqtt:<feed>", ... */
  origin: string;
}

export type PointsListener = (p: WrittenPoints) => void;

/**
 * In-process fan-out of committed points to the engines that follow the data (alerting,
 * forecasting). Listeners run synchronously after commit; a throwing listener is isolated
 * so one engine cannot break ingest for the others.
 */
export class PointsBus {
  private readonly listeners = new Set<PointsListener>();
  constructor(private readonly onListenerError: (err: unknown) => void = () => {}) {}

  subscribe(fn: PointsListener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  publish(p: WrittenPoints): void {
    for (const fn of this.listeners) {
      try {
        fn(p);
      } catch (e) {
        this.onListenerError(e);
      }
    }
  }
}
