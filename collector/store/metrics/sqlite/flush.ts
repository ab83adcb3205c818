import { releaseBuffer } from "../../../../src/runtime/release-buffer.ts";
import { chunkPieces } from "../pieces.ts";
import type { Run } from "../../../../src/metrics/run.ts";
import { encodeChunkBlock } from "./chunks.ts";
import type { SeriesHead } from "../head.ts";
import { isNumeric, type SeriesMeta, type StoreState } from "./state.ts";

/** Turning heads into sealed chunks, and dropping the log batches no head needs any more. */

/**
 * Points sealed per transaction by the background flush (`sliced`). Why: under steady ingest
 * every head reaches the chunk size at about the same time, and one transaction sealing 1,000
 * heads (1–2 M points) held the event loop for 100–200 ms, while requests, the JSON worker and
 * the clients waited (issue 28). A slice takes about 5 ms; the next one runs after the requests
 * that came meanwhile.
 */
export const FLUSH_SLICE_POINTS = 64 * 1024;

/** Whether a head's oldest point arrived `headMaxAgeMs` ago or more (it is due, and its series may have stopped). */
function agedOut(s: StoreState, h: SeriesHead, now: number): boolean {
  return now - h.firstArrival >= s.opts.headMaxAgeMs;
}

/**
 * Flushes heads that are big or old enough, and the largest ones while memory is over budget.
 * `sliced`: at most about FLUSH_SLICE_POINTS points now, the rest of what is due in the next
 * turns of the event loop. The heads are chosen once for all the slices (the plan): choosing
 * again at each slice walked and sorted every dirty head each time, 50,000 under remote write,
 * dozens of times in a backlog (issue 28). A head sealed meanwhile is not sealed twice; one
 * that becomes due meanwhile waits for the next plan, a few turns later.
 */
export function flushDue(s: StoreState, force = false, sliced = false): void {
  if (s.dirty.size === 0) return;
  if (!sliced) {
    const due = chooseDue(s, force);
    if (due.length > 0) flush(s, due);
    return;
  }
  // Over the heads' budget, a slice seals at least the excess: ingest faster than slices of
  // FLUSH_SLICE_POINTS between its batches grew the heads without bound (MQTT at 4 M points/s:
  // 4 M → 52 M points held in 30 s, 1.5 GB resident). A slice then takes as long as the points
  // that came in since the last one, no longer.
  const slice = Math.max(FLUSH_SLICE_POINTS, s.headPoints - s.opts.maxHeadPoints);
  const take: SeriesMeta[] = [];
  let points = 0;
  let planned = false;
  while (points < slice) {
    if (!s.flushPlan.pending) {
      // A new plan at most once a slice: when the last one ran out before the slice's points
      // (writes came in faster than it sealed), or there was none.
      if (planned) break;
      planned = true;
      if (!plan(s, take)) break;
    }
    const got = s.flushPlan.takeInto(take, slice - points, (m) => s.dirty.has(m));
    points += got;
    // The plan's next head does not fit in what is left of the slice: it waits for the next one.
    if (got === 0 && s.flushPlan.pending) break;
  }
  if (take.length > 0) flush(s, take);
  if (s.flushPlan.pending) scheduleFlush(s);
}

/** Chooses the heads the next slices seal, longest first, apart from `taken`; false when none is due. */
function plan(s: StoreState, taken: SeriesMeta[]): boolean {
  const due = chooseDue(s, false, taken);
  if (due.length === 0) return false;
  // Longest first: a head near the largest chunk is sealed before it doubles its arrays.
  due.sort((a, b) => b.head!.length - a.head!.length);
  s.flushPlan.start(due);
  return true;
}

/**
 * The heads due now: big or old enough (all of them with `force`), and the largest ones while
 * memory is over budget; `taken` are already chosen (counted as sealed, not chosen again).
 */
function chooseDue(s: StoreState, force: boolean, taken: SeriesMeta[] = []): SeriesMeta[] {
  const now = s.now();
  // Nothing can be due: no walk over every head (the maintenance round's, each second: 50,000
  // heads under remote write, a million at a larger site).
  if (!force && !s.sizeDue && now - s.arrivalFloor < s.opts.headMaxAgeMs && s.headPoints <= s.opts.maxHeadPoints && taken.length === 0) return [];
  const due: SeriesMeta[] = [];
  const skip = taken.length > 0 ? new Set(taken) : undefined;
  let floor = now;
  for (const m of s.dirty) {
    const h = m.head;
    if (!h || h.length === 0) continue;
    if (h.firstArrival < floor) floor = h.firstArrival;
    if (skip?.has(m)) continue;
    if (force || h.length >= s.opts.chunkPoints || agedOut(s, h, now)) due.push(m);
  }
  // Heads that start filling from now on arrive later; every head due for its size is chosen.
  s.arrivalFloor = floor;
  s.sizeDue = false;
  let remaining = s.headPoints;
  for (const m of due) remaining -= m.head!.length;
  for (const m of taken) remaining -= m.head!.length;
  if (remaining > s.opts.maxHeadPoints) {
    // A set: with tens of thousands of heads due and over budget at once, includes() was quadratic.
    const chosen = new Set([...due, ...taken]);
    const rest = s.dirty.toArray().filter((m) => !chosen.has(m) && m.head && m.head.length > 0);
    rest.sort((a, b) => b.head!.length - a.head!.length);
    for (const m of rest) {
      if (remaining <= s.opts.maxHeadPoints / 2) break;
      due.push(m);
      remaining -= m.head!.length;
    }
  }
  return due;
}

/**
 * A sliced flush due soon, after the current turn of the event loop (once however often asked).
 * A failure (a full disk) is reported as the maintenance round's is: the heads keep their
 * points, and a later flush retries.
 */
export function scheduleFlush(s: StoreState): void {
  if (s.flushScheduled) return;
  s.flushScheduled = true;
  setImmediate(() => {
    s.flushScheduled = false;
    if (!s.isReady) return;
    try {
      flushDue(s, false, true);
    } catch (e) {
      if (s.opts.health?.report(e, "metrics") === undefined) s.opts.log?.error("metrics flush failed", { err: String(e) });
    }
  });
}

/**
 * Writes the heads of `due` into chunks and drops the log batches no head needs any more, in
 * one transaction. The heads are emptied only after the commit: if it fails (a full disk),
 * their points stay in memory and in the log, and a later flush writes them.
 */
function flush(s: StoreState, due: SeriesMeta[]): void {
  s.chunkEpoch++;
  /** The chunks written, for the kept chunk lists once committed: sid, cid, start_ts, end_ts, expires_at. */
  const added: number[] = [];
  let sealedPoints = 0;
  let dropBefore = 0;
  const sealing = s.db.transaction(() => {
    for (const m of due) {
      const h = m.head!;
      // The shared scratch's columns: used up before the next head's are taken.
      const cols = h.columns();
      // Retention counts from the write: the chunk lives its retention from now, whatever its timestamps.
      const expiresAt = s.now() + s.retentionMs(m);
      const numeric = isNumeric(m.type);
      const run: Run = {
        ts: cols.ts,
        nums: cols.nums,
        strs: numeric ? undefined : h.strs!.slice(0, h.length),
        tags: h.tags?.slice(0, h.length),
      };
      for (const [a, b] of chunkPieces(run.ts, s.opts.chunkPoints)) {
        const part: Run = { ts: run.ts.subarray(a, b), nums: run.nums?.subarray(a, b), strs: run.strs?.slice(a, b), tags: run.tags?.slice(a, b) };
        const block = encodeChunkBlock(part);
        const r = s.st.insertChunk.run(m.sid, run.ts[a]!, run.ts[b - 1]!, b - a, expiresAt, block);
        added.push(m.sid, Number(r.lastInsertRowid), run.ts[a]!, run.ts[b - 1]!, expiresAt);
        sealedPoints += b - a;
        // Garbage from here on: the block (SQLite has copied it; the head's segments go back to
        // the pool). Told per chunk, so that a round of 1,000 heads is collected as it goes
        // rather than after it (issue 16: the round itself was the peak).
        s.opts.released?.(block.byteLength);
        // SQLite has copied the block: its memory goes back to the allocator now, for the next
        // chunk's, instead of waiting for a collection (issue 28: 8 bytes a point of garbage).
        releaseBuffer(block, 0);
      }
      // Only a known mark moves: an unknown one is read from the table when needed. Set
      // before the commit, a failed one leaves it too high, which costs a lookup, never a point.
      if (m.chunkMaxTs !== undefined && run.ts.length > 0) m.chunkMaxTs = Math.max(m.chunkMaxTs ?? Number.NEGATIVE_INFINITY, run.ts[run.ts.length - 1]!);
      s.st.updateSeriesFlush.run(m.minTs ?? null, m.maxTs ?? null, h.lastSeq, m.sid);
    }
    dropBefore = truncateLog(s, due);
  });
  try {
    sealing();
  } catch (e) {
    // The heads keep their points: the next round walks them all again, whatever made them due.
    s.arrivalFloor = Number.NEGATIVE_INFINITY;
    s.sizeDue = true;
    throw e;
  }
  // Once this commit is on disk, the log's segments it emptied go (ingest-log.ts).
  s.log.dropBefore(dropBefore);
  for (let k = 0; k < added.length; k += 5) s.lists.added(added[k]!, added[k + 1]!, added[k + 2]!, added[k + 3]!, added[k + 4]!);
  s.rollups?.sealed(added, sealedPoints);
  for (const m of due) {
    m.flushedSeq = m.head!.lastSeq;
    s.headPoints -= m.head!.length;
    m.head!.clear();
    s.markClean(m);
  }
}

/**
 * The first log batch a head still needs once `flushing` is written (the log's next sequence
 * when none); the old log table's rows before it are deleted in the flush's transaction.
 */
function truncateLog(s: StoreState, flushing: SeriesMeta[]): number {
  // Batches committed but not yet applied (awaiting the log's sync) are in no head yet: kept.
  let minSeq = s.unapplied[0] ?? s.log.nextSeq;
  const sealed = new Map<number, number>();
  for (const m of flushing) sealed.set(m.head!.firstSeq, (sealed.get(m.head!.firstSeq) ?? 0) + 1);
  const least = s.firstSeqs.least(sealed);
  if (least !== undefined && least < minSeq) minSeq = least;
  if (s.legacyLog) {
    s.st.deleteLogBefore.run(minSeq);
    s.legacyLog = s.db.query("SELECT 1 FROM ingest_log LIMIT 1").get() !== null;
  }
  return minSeq;
}
