import { DAY_MS } from "../../src/metrics/model.ts";

/**
 * A first timestamp for test points that counts chunks: an hour into yesterday (UTC). Sealing
 * cuts chunks at UTC midnight (collector/store/metrics/pieces.ts), so points from an hour before
 * now were cut in two when the suite reached them less than their span before 01:00 UTC (82 + 42
 * points in one CI run, 4,096 + 904 in another).
 */
export function clearOfMidnight(): number {
  return (Math.floor(Date.now() / DAY_MS) - 1) * DAY_MS + 3_600_000;
}
