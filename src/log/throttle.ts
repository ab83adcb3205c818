/**
 * Lets a recurring log line through at most once per `intervalMs` per key, and tells how many
 * were held back meanwhile, so a flood of bad input is visible without flooding the log.
 */
export function createLogThrottle(intervalMs: number, now: () => number = Date.now) {
  const last = new Map<string, { at: number; suppressed: number }>();
  return (key: string): { pass: boolean; suppressed: number } => {
    const t = now();
    const e = last.get(key);
    if (e && t - e.at < intervalMs) {
      e.suppressed++;
      return { pass: false, suppressed: 0 };
    }
    const suppressed = e?.suppressed ?? 0;
    last.set(key, { at: t, suppressed: 0 });
    return { pass: true, suppressed };
  };
}
