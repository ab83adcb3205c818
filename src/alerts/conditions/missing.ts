/** True when nothing arrived for at least `interval` ms since `previousTime`. */
export function missingMatches(interval: number, previousTime: number, time: number): boolean {
  return time - previousTime >= interval;
}
