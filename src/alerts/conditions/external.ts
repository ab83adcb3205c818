/**
 * External conditions are evaluated by an external alerter; whatever reaches the engine for
 * their dataId is such an evaluation, and every one counts as true.
 */
export function externalMatches(): boolean {
  return true;
}
