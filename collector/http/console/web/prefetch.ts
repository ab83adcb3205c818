/**
 * A read started before its view renders: the fleet is asked for as soon as the session is
 * known, while the page is still being built, and the fleet view takes that answer for its
 * first turn. Anything older than a few seconds is not used.
 */
const MAX_AGE_MS = 4000;
const pending = new Map<string, { at: number; promise: Promise<unknown> }>();

export function prefetch<T>(key: string, load: () => Promise<T>): void {
  const promise = load();
  // A failed prefetch is the view's to retry; it must not be an unhandled rejection.
  promise.catch(() => undefined);
  pending.set(key, { at: Date.now(), promise });
}

/** The prefetched read for `key`, once; undefined when there is none or it is stale. */
export function takePrefetched<T>(key: string): Promise<T> | undefined {
  const p = pending.get(key);
  pending.delete(key);
  return p && Date.now() - p.at <= MAX_AGE_MS ? (p.promise as Promise<T>) : undefined;
}
