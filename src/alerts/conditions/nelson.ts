/** True when any violated rule is one of the active ones (both as bit sets). */
export function nelsonMatches(activeMask: number, violations: number): boolean {
  return (activeMask & violations) !== 0;
}
