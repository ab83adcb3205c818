/**
 * A series text written as pieces of its id, so the scrape cache (series-cache.ts) need not keep
 * the text: the id is the text's name and labels, sorted, with the target's labels (`feed`,
 * `instance`, `job`, ...) among them, so the text is a few runs of the id's characters. Sorted
 * labels read as the runs between the target's labels; labels in another order (as the Python
 * and Java clients write them, in their declared order) as one run per label or so.
 *
 * A piece is 3 bytes: where it starts in the id (2 bytes) and its length (1 byte); a list is a
 * count byte and its pieces. Kept only when read back equal to the text, so a lookup through
 * the pieces answers exactly as one through the text.
 */

/** Most pieces a text may take. */
const MAX_PIECES = 24;
/** Longest id whose pieces can be written (a piece's start is 2 bytes). */
const MAX_ID = 0xffff;

/**
 * The pieces of `id` that s[start, end) reads as, flat ([from, length, ...], lengths up to 255),
 * or undefined when the text is not its name and labels as `name{a="x",b="y"}` writes them or
 * the pieces would take as many bytes as the text.
 */
export function idPieces(s: string, start: number, end: number, id: string): number[] | undefined {
  if (id.length > MAX_ID) return undefined;
  const runs: number[] = [];
  const run = (from: number, len: number) => {
    const n = runs.length;
    // Adjacent in the id: one piece.
    if (n > 0 && runs[n - 2]! + runs[n - 1]! === from) runs[n - 1]! += len;
    else runs.push(from, len);
  };
  let i = start;
  while (i < end && s.charCodeAt(i) !== 0x7b /* { */) i++;
  // The name and its brace, as the id begins.
  const head = i < end ? i + 1 - start : end - start;
  if (!sameAt(s, start, id, 0, head)) return undefined;
  run(0, head);
  if (i === end) return finish(runs, s, start, end, id);
  i++;
  let first = true;
  while (i < end) {
    const c = s.charCodeAt(i);
    if (c === 0x7d /* } */ && i === end - 1 && !first) break;
    if (!first) {
      if (c !== 0x2c /* , */) return undefined;
      i++;
    }
    // One label: name="value", the value's escapes read past.
    const at = i;
    while (i < end && s.charCodeAt(i) !== 0x3d /* = */) i++;
    if (i === at || i + 1 >= end || s.charCodeAt(i + 1) !== 0x22 /* " */) return undefined;
    for (i += 2; i < end && s.charCodeAt(i) !== 0x22; i++) if (s.charCodeAt(i) === 0x5c /* \ */) i++;
    if (i >= end) return undefined;
    i++;
    const label = s.slice(at, i);
    let from = id.indexOf(label);
    // A label of its own in the id: begins one, and ends it.
    while (from > 0 && !((id.charCodeAt(from - 1) === 0x7b || id.charCodeAt(from - 1) === 0x2c) && (id.charCodeAt(from + label.length) === 0x2c || id.charCodeAt(from + label.length) === 0x7d))) from = id.indexOf(label, from + 1);
    if (from <= 0) return undefined;
    if (!first) {
      // Its comma: the one before it in the id, the one after the label before it, or any.
      const n = runs.length;
      const prevEnd = runs[n - 2]! + runs[n - 1]!;
      if (id.charCodeAt(from - 1) === 0x2c) {
        run(from - 1, label.length + 1);
        first = false;
        continue;
      }
      if (id.charCodeAt(prevEnd) === 0x2c) run(prevEnd, 1);
      else {
        const comma = id.indexOf(",");
        if (comma < 0) return undefined;
        run(comma, 1);
      }
    }
    run(from, label.length);
    first = false;
  }
  if (first || i !== end - 1) return undefined;
  run(id.length - 1, 1);
  return finish(runs, s, start, end, id);
}

/** Runs split into pieces of at most 255, checked against the text and against its size. */
function finish(runs: number[], s: string, start: number, end: number, id: string): number[] | undefined {
  const out: number[] = [];
  for (let k = 0; k < runs.length; k += 2) {
    for (let from = runs[k]!, len = runs[k + 1]!; len > 0; ) {
      const n = Math.min(len, 0xff);
      out.push(from, n);
      from += n;
      len -= n;
    }
  }
  const pieces = out.length / 2;
  if (pieces > MAX_PIECES || 1 + 3 * pieces >= end - start) return undefined;
  let i = start;
  for (let k = 0; k < out.length; k += 2) {
    if (!sameAt(s, i, id, out[k]!, out[k + 1]!)) return undefined;
    i += out[k + 1]!;
  }
  return i === end ? out : undefined;
}

function sameAt(s: string, i: number, id: string, from: number, len: number): boolean {
  if (from + len > id.length) return false;
  for (let k = 0; k < len; k++) if (s.charCodeAt(i + k) !== id.charCodeAt(from + k)) return false;
  return true;
}

/** Bytes that a list of `pieces` (flat, as idPieces gives it) takes. */
export const piecesSize = (pieces: readonly number[]) => 1 + (pieces.length / 2) * 3;

/** Writes the list at `at` in `pool`. */
export function writePieces(pool: Uint8Array, at: number, pieces: readonly number[]): void {
  pool[at] = pieces.length / 2;
  for (let k = 0, p = at + 1; k < pieces.length; k += 2, p += 3) {
    pool[p] = pieces[k]! & 0xff;
    pool[p + 1] = pieces[k]! >>> 8;
    pool[p + 2] = pieces[k + 1]!;
  }
}

/** Bytes of the list at `at` in `pool`. */
export const storedSize = (pool: Uint8Array, at: number) => 1 + 3 * pool[at]!;

/** True when s[start, end) reads as the list at `at` in `pool` of the id id[idStart, ...). */
export function matchesPieces(s: string, start: number, end: number, id: string, idStart: number, pool: Uint8Array, at: number): boolean {
  const n = pool[at]!;
  let i = start;
  for (let k = 0, p = at + 1; k < n; k++, p += 3) {
    const from = idStart + (pool[p]! | (pool[p + 1]! << 8));
    const len = pool[p + 2]!;
    if (len > end - i) return false;
    for (let c = 0; c < len; c++) if (id.charCodeAt(from + c) !== s.charCodeAt(i + c)) return false;
    i += len;
  }
  return i === end;
}
