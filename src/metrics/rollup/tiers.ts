/**
 * Rollup tiers: aggregates of every numeric series per bucket of a fixed step, kept for their
 * own retention beside the raw points (docs/storage.md, "Rollup tiers"). Buckets are aligned
 * on the epoch: bucket i of a tier holds the points of [i·step, (i + 1)·step). Stored blocks
 * hold `blockBuckets` consecutive buckets of one series and tier, also epoch-aligned.
 */

const MINUTE = 60_000;
const DAY = 86_400_000;

export interface RollupTier {
  /** Bucket length, ms. */
  step: number;
  /** How long a bucket is kept after it was last written, ms. */
  retention: number;
  /** Buckets per stored block. */
  blockBuckets: number;
  /** The step as written: "5m", "1h", "1d". */
  name: string;
}

/** Five-minute buckets for a year, hourly for five years, daily for ten. */
export const DEFAULT_ROLLUP_TIERS = ["5m:365d", "1h:1825d", "1d:3650d"];
export const MAX_TIERS = 4;

/** Buckets per block: a day of 5-minute buckets, 12 days of hourly ones; 32 days of daily ones. */
export function blockBucketsOf(step: number): number {
  return step >= DAY ? 32 : 288;
}

export function blockSpan(t: RollupTier): number {
  return t.step * t.blockBuckets;
}

/** "5m", "1h", "1d", "90s": the largest whole unit. */
export function stepName(ms: number): string {
  for (const [unit, size] of [["d", DAY], ["h", 3_600_000], ["m", MINUTE], ["s", 1000]] as const) if (ms % size === 0) return `${ms / size}${unit}`;
  return `${ms}ms`;
}

/** Units of a tier's step and retention; a year is 365 days. */
const UNITS: Record<string, number> = { s: 1000, m: MINUTE, h: 3_600_000, d: DAY, y: 365 * DAY };

function duration(text: string, what: string): number {
  const m = /^(\d+)(s|m|h|d|y)$/.exec(text.trim());
  if (!m) throw new Error(`${what} "${text}" is not a duration such as 5m, 1h, 1d, 365d or 1y`);
  return Number(m[1]) * UNITS[m[2]!]!;
}

/**
 * Tiers from their written form, "STEP:RETENTION" each (5m:365d), finest first. An empty list
 * (or the single entry "none") turns rollups off. Throws an Error saying what is wrong: steps
 * must grow, each a multiple of the one before whose blocks it divides (so that every bucket of
 * a tier lies in one block of each finer tier), at least a minute, and a retention at least
 * the step.
 */
export function parseRollupTiers(list: readonly string[]): RollupTier[] {
  const entries = list.map((s) => s.trim()).filter((s) => s !== "");
  if (entries.length === 1 && entries[0]!.toLowerCase() === "none") return [];
  if (entries.length > MAX_TIERS) throw new Error(`at most ${MAX_TIERS} tiers, got ${entries.length}`);
  const tiers: RollupTier[] = [];
  for (const e of entries) {
    const [stepText, retentionText, ...rest] = e.split(":");
    if (retentionText === undefined || rest.length > 0) throw new Error(`"${e}" is not STEP:RETENTION (e.g. 5m:365d)`);
    const step = duration(stepText!, "step");
    const retention = duration(retentionText, "retention");
    if (step < MINUTE) throw new Error(`step ${stepText} is shorter than a minute`);
    if (retention < step) throw new Error(`retention ${retentionText} of tier ${stepText} is shorter than its step`);
    const prev = tiers.at(-1);
    if (prev) {
      if (step <= prev.step) throw new Error(`steps must grow: ${stepText} after ${prev.name}`);
      if (step % prev.step !== 0) throw new Error(`step ${stepText} is not a multiple of the finer step ${prev.name}`);
      if (blockSpan(prev) % step !== 0) throw new Error(`step ${stepText} does not divide the ${stepName(blockSpan(prev))} blocks of tier ${prev.name}`);
    }
    tiers.push({ step, retention, blockBuckets: blockBucketsOf(step), name: stepName(step) });
  }
  return tiers;
}

/** The tiers in their written form (for logs and --check-config). */
export function tiersText(tiers: readonly RollupTier[]): string {
  return tiers.length === 0 ? "none" : tiers.map((t) => `${t.name}:${stepName(t.retention)}`).join(",");
}
