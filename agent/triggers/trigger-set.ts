import type { FullTrigger } from "../../src/alerts/model.ts";

/** The dataIds a set of triggers reads: only points of these metrics are worth evaluating. */
export function dataIdsOf(triggers: Iterable<FullTrigger>): Set<string> {
  const ids = new Set<string>();
  for (const t of triggers) {
    for (const c of t.conditions) {
      if ("dataId" in c && typeof c.dataId === "string") ids.add(c.dataId);
      if ("data2Id" in c && typeof c.data2Id === "string") ids.add(c.data2Id);
    }
  }
  return ids;
}

/**
 * What to change in the engine to go from the loaded definitions (id → JSON text) to `next`:
 * new and changed triggers are (re)loaded, missing ones removed. An unchanged trigger keeps its
 * engine state (mode, dampening), so a re-pushed set after a reconnect changes nothing.
 */
export function diffTriggers(loaded: ReadonlyMap<string, string>, next: readonly FullTrigger[]) {
  const load: FullTrigger[] = [];
  const texts = new Map<string, string>();
  for (const t of next) {
    const text = JSON.stringify(t);
    texts.set(t.trigger.id, text);
    if (loaded.get(t.trigger.id) !== text) load.push(t);
  }
  const remove = [...loaded.keys()].filter((id) => !texts.has(id));
  return { load, remove, texts };
}
