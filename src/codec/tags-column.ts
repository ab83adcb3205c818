import type { Tags } from "../metrics/model.ts";
import type { ByteReader, ByteWriter } from "./bytes.ts";
import { readDictionary, writeDictionary } from "./dictionary.ts";
import { corrupt } from "./errors.ts";

/**
 * Per-point tags: each distinct tag set once, as JSON (which keeps the key order and escapes
 * what UTF-8 cannot carry), and per point its entry or none. Points with equal tags share one
 * decoded object, frozen because it is shared.
 */
export function writeTags(out: ByteWriter, tags: readonly (Tags | undefined)[], n: number): void {
  // The same object is usually reused for many points; stringify it once.
  const seen = new Map<Tags, string>();
  writeDictionary(out, n, (i) => {
    const t = tags[i];
    if (t === undefined) return null;
    let k = seen.get(t);
    if (k === undefined) {
      for (const key in t) if (typeof t[key] !== "string") throw new TypeError(`tag "${key}" of point ${i} is not a string`);
      k = JSON.stringify(t);
      seen.set(t, k);
    }
    return k;
  });
}

export function readTags(r: ByteReader, n: number): (Tags | undefined)[] {
  const { entries, idx } = readDictionary(r, n);
  const sets = entries.map((e) => {
    let t: unknown;
    try {
      t = JSON.parse(e);
    } catch {
      corrupt("tags that are not JSON");
    }
    if (typeof t !== "object" || t === null || Array.isArray(t)) corrupt("tags that are not an object");
    return Object.freeze(t as Tags);
  });
  const out: (Tags | undefined)[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const j = idx[i]!;
    out[i] = j === 0 ? undefined : sets[j - 1];
  }
  return out;
}
