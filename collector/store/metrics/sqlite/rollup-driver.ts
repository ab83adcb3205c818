import type { RollupTier } from "../../../../src/metrics/rollup/tiers.ts";
import type { RemoteSteps, RemoteWindow, RollupCompute } from "./rollup-remote.ts";
import type { StepRequest } from "./rollup-series.ts";
import type { StoreState } from "./state.ts";

/** The background task's time for the roller on this thread per second, in slices with the event loop free between. */
const BUDGET_MS = 200;
const SLICE_MS = 20;
/** The same while queries are being answered (a read in the last second). */
const READING_BUDGET_MS = 20;
/** Series whose steps one request to the roller's thread asks for (one transaction writes their answer). */
const REMOTE_SERIES = 64;

/** What the driver needs of the roller (rollups.ts). */
export interface SteppedRoller {
  /** Changes whenever this thread runs a round: an answer asked for before is then dropped. */
  readonly generation: number;
  /** Work on this thread for about `budgetMs` (`force`: open a window now); true when there is more. */
  round(budgetMs: number, force?: boolean): boolean;
  remoteReady(): boolean;
  nextRequests(force: boolean, series: number): { window: RemoteWindow; tiers: readonly RollupTier[]; requests: StepRequest[] } | undefined;
  writeRemote(w: RemoteWindow, answer: RemoteSteps): void;
  failed(e: unknown): void;
}

/**
 * When, and in which thread, the roller's steps run. With a roller's thread (`remote`), a
 * window's steps are computed there request after request, each answer written here in one
 * transaction. Without one (or while it is lost, or a tier is being derived or dropped), up to
 * BUDGET_MS a second here, in slices of SLICE_MS, so that requests are not held up behind a
 * catch-up; a tenth of that while queries are being answered.
 */
export class RollupDriver {
  /** A slice of work on this thread is scheduled. */
  private slicing = false;
  /** A request to the roller's thread is out, asked at this generation of the roller. */
  private remoteAt: number | undefined;

  constructor(
    private readonly r: SteppedRoller,
    private readonly s: StoreState,
    private readonly remote?: RollupCompute,
  ) {}

  /** The background task's share, called once a second. */
  background(): void {
    if (this.slicing || this.remoteAt === this.r.generation) return;
    if (this.remote && this.r.remoteReady()) this.remoteRounds(false).catch((e) => this.r.failed(e));
    else this.localBackground();
  }

  /** Rolls up every sealed chunk (in the roller's thread when there is one); resolves once done. */
  async catchUp(): Promise<void> {
    if (this.remote && this.r.remoteReady()) await this.remoteRounds(true);
    else this.r.round(Number.POSITIVE_INFINITY, true);
  }

  private localBackground(): void {
    // Queries first: while they come, the roller does a small share, enough not to fall behind for good.
    const reading = performance.now() - this.s.lastReadAt < 1000;
    const deadline = performance.now() + (reading ? READING_BUDGET_MS : BUDGET_MS);
    const slice = () => {
      this.slicing = false;
      if (!this.s.isReady) return;
      let more: boolean;
      try {
        more = this.r.round(SLICE_MS);
      } catch (e) {
        this.r.failed(e);
        return;
      }
      if (more && performance.now() < deadline && this.s.isReady) {
        this.slicing = true;
        setTimeout(slice, 0);
      }
    };
    slice();
  }

  /**
   * Requests to the roller's thread, one after the other while the window lasts (while queries
   * are being answered, one a second: the thread may share a core with them). `force`
   * (catchUp): windows open at once, one after the other, until every sealed chunk is rolled up.
   */
  private async remoteRounds(force: boolean): Promise<void> {
    const generation = this.r.generation;
    this.remoteAt = generation;
    try {
      for (;;) {
        const next = this.r.nextRequests(force, REMOTE_SERIES);
        if (!next) return;
        const answer = await this.remote!.compute(this.s.db.filename, next.tiers, next.requests, this.s.now());
        // This thread took the window's steps itself meanwhile (a round), or the store closed.
        if (generation !== this.r.generation || !this.s.isReady) return;
        if (!answer) {
          // The thread failed or is gone: the share is computed here.
          this.remoteAt = undefined;
          if (force) this.r.round(Number.POSITIVE_INFINITY, true);
          else this.localBackground();
          return;
        }
        this.r.writeRemote(next.window, answer);
        if (!force && performance.now() - this.s.lastReadAt < 1000) return;
      }
    } finally {
      if (this.remoteAt === generation) this.remoteAt = undefined;
    }
  }
}
