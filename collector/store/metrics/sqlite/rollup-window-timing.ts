/** A window of chunks to roll up opens at most this often while points keep coming in, */
const ROLL_PERIOD_MS = 30_000;
/** and this often once no point has come in since the roller's last round. */
const QUIET_PERIOD_MS = 2000;
/**
 * While points keep coming in, a window also waits until the chunks sealed since the last one
 * hold this many points per series with chunks to roll up, or MAX_ROLL_PERIOD_MS has passed. Why:
 * a series' step costs about the same whatever it brings (it rewrites the blocks its points fall
 * in, up to a day of 5-minute buckets, about 10 KB), and slow series sealed by the heads' budget
 * brought 80 points a step: 0.3 ms a chunk at midnight, 0.85 ms by evening (issue 28,
 * docs/storage.md "The roller's windows"). Queries read raw points where chunks are not rolled up yet.
 */
const STEP_POINTS = 1024;
const MAX_ROLL_PERIOD_MS = 600_000;

/** When the SQLite roller opens its next window (rollups.ts). */
export class WindowTiming {
  /** The store's open replayed points (a restart) and no window has opened since. */
  private restarted: boolean;
  /** Points in the chunks sealed since the last window opened. */
  private sealedPoints = 0;

  /**
   * `openedAt`: the store's open counts as a window opened. Why: the chunks a restart finds
   * then wait for the next window, as they would have had the collector run on, rather than
   * being rolled up at once beside the replay and the backlog that follows a restart (the
   * roller's thread took a third of a restarted collector's CPU while it caught up with a
   * remote-write backlog; issue 28, docs/storage.md "Blocks in segments").
   * `lastAppended`: the store's count of points appended at the open (those of its replay);
   * unchanged at a round means quiet. After an open that replayed points (a restart), the first
   * window waits ROLL_PERIOD_MS even when quiet: the senders come back over the first seconds,
   * their backlog in bursts with pauses between (a restarted collector's roller took a third
   * of its CPU beside a remote-write backlog, opened by a pause of a second after Prometheus'
   * first request; issue 28, docs/storage.md "Point streams").
   */
  constructor(
    private openedAt: number,
    private lastAppended: number,
  ) {
    this.restarted = lastAppended > 0;
  }

  /** A flush sealed chunks of `points` points in all. */
  sealed(points: number): void {
    this.sealedPoints += points;
  }

  /**
   * Whether a window is due at `now`, asked once a round: `appended` is the store's count of
   * points appended (a seal shrinks the heads while points still come, so their size would not
   * tell), `series` those with chunks to roll up.
   */
  due(now: number, appended: number, series: number): boolean {
    const quiet = appended === this.lastAppended;
    this.lastAppended = appended;
    const since = now - this.openedAt;
    if (quiet) return since >= (this.restarted ? ROLL_PERIOD_MS : QUIET_PERIOD_MS);
    if (since < ROLL_PERIOD_MS) return false;
    return since >= MAX_ROLL_PERIOD_MS || this.sealedPoints >= STEP_POINTS * Math.max(1, series);
  }

  /** A window opened at `now`. */
  opened(now: number): void {
    this.openedAt = now;
    this.sealedPoints = 0;
    this.restarted = false;
  }
}
