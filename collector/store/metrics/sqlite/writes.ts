import type { ByIdTable } from "../../../../src/codec/by-id-table.ts";
import type { MetricType, MetricWrite } from "../../../../src/metrics/model.ts";
import type { WriteColumns } from "../../../../src/metrics/write-columns.ts";
import { SeriesHead } from "../head.ts";
import { buildLogBody, columnsLogBody, decodeLogBody, encodeLogBody, type LogBody, LogBodyScratch } from "../log-body.ts";
import { releaseDecoderInput } from "../../../../src/cbor/cbor.ts";
import { scheduleFlush } from "./flush.ts";
import { isLive, isNumeric, kindKey, type PendingWrite, type SeriesMeta, type StoreState } from "./state.ts";
import { readHeadsAhead, readMetasAhead } from "./read-ahead.ts";

/** The write path of the SQLite metrics store: group commit into the log, then the heads. */

/**
 * Queues the writes; every write that arrives in the same event-loop turn is committed in
 * one transaction (group commit), so concurrent requests share one fsync. Resolves after the
 * commit, when the points are also readable.
 */
export function write(s: StoreState, tenant: string, writes: MetricWrite[]): Promise<void> {
  const nonEmpty = writes.filter((w) => w.points.length > 0);
  return queue(s, tenant, nonEmpty.length === 0 ? undefined : { writes: nonEmpty });
}

/** Like write, for a columnar body (src/metrics/write-columns.ts; its entries all have points). */
export function writeColumns(s: StoreState, tenant: string, cols: WriteColumns): Promise<void> {
  return queue(s, tenant, cols.ids.length === 0 ? undefined : { cols });
}

function queue(s: StoreState, tenant: string, w: { writes?: MetricWrite[]; cols?: WriteColumns } | undefined): Promise<void> {
  if (!s.isReady) return Promise.reject(new Error("metrics store is not open"));
  if (!w) return Promise.resolve();
  return new Promise((resolve, reject) => {
    s.pending.push({ tenant, ...w, resolve, reject });
    if (!s.commitScheduled) {
      s.commitScheduled = true;
      setImmediate(() => commitPending(s));
    }
  });
}

function commitPending(s: StoreState): void {
  s.commitScheduled = false;
  const group = s.pending.splice(0);
  if (group.length === 0) return;
  // Tenants and series this group creates: registered in memory only after the commit.
  const newTenants: string[] = [];
  const newSeries = new Map<string, Map<string, SeriesMeta>>();
  // Only a group that creates series or tenants is a SQLite transaction; its points go to the
  // ingest log (ingest-log.ts), after that commit.
  let inTx = false;
  let created = false;
  const begin = () => {
    if (inTx) return;
    s.db.exec("BEGIN");
    inTx = created = true;
  };
  /** The series, inserting its row if it is new. */
  const metaOf = (tenant: string, type: MetricType, id: string, known: ByIdTable<SeriesMeta> | undefined, added: Map<string, SeriesMeta>) => {
    let m = known?.get(id) ?? added.get(id);
    if (!m) {
      begin();
      added.set(id, (m = s.insertSeriesRow(tenant, type, id, undefined, undefined)));
    }
    return m;
  };
  const addedOf = (k: string) => {
    let a = newSeries.get(k);
    if (!a) newSeries.set(k, (a = new Map()));
    return a;
  };
  // One log record per columnar request (its columns are encoded as they are, not copied into a
  // shared body) and one for each run of object writes; one fsync for all.
  // Each row's series go with it to the apply, which then needs no lookup by sid.
  const rows: LogBody[] = [];
  const rowMetas: SeriesMeta[][] = [];
  let seqs: number[];
  try {
    s.writing(() => {
      try {
        let writes: MetricWrite[] = [];
        let metas: SeriesMeta[] = [];
        const pushRow = (body: LogBody, series: SeriesMeta[]) => {
          rows.push(body);
          rowMetas.push(series);
        };
        for (const g of group) {
          if (!newTenants.includes(g.tenant) && !s.tenants.has(g.tenant)) {
            begin();
            if (s.insertTenantRow(g.tenant)) newTenants.push(g.tenant);
          }
          if (g.cols) {
            // Bodies stay in request order: the object writes gathered so far go first.
            if (writes.length) pushRow(buildLogBody(writes, sidsOf(metas)), metas);
            writes = [];
            metas = [];
            const colMetas = columnMetas(s, g.tenant, g.cols, metaOf, addedOf);
            pushRow(columnsLogBody(g.cols, sidsOf(colMetas)), colMetas);
            continue;
          }
          let lastType: MetricType | undefined;
          let known: ByIdTable<SeriesMeta> | undefined;
          let added!: Map<string, SeriesMeta>;
          for (const w of g.writes!) {
            if (w.type !== lastType) {
              lastType = w.type;
              const k = kindKey(g.tenant, w.type);
              known = s.byKind.get(k);
              added = addedOf(k);
            }
            metas.push(metaOf(g.tenant, w.type, w.id, known, added));
            writes.push(w);
          }
        }
        if (writes.length) pushRow(buildLogBody(writes, sidsOf(metas)), metas);
        if (inTx) s.db.exec("COMMIT");
        inTx = false;
      } catch (e) {
        if (inTx && s.db.inTransaction) s.db.exec("ROLLBACK");
        throw e;
      }
    });
  } catch (e) {
    for (const g of group) g.reject(e);
    return;
  }
  // Series and tenants are known from the commit on (the next group must not insert them again).
  for (const t of newTenants) s.tenants.set(t, { id: t });
  for (const added of newSeries.values()) for (const m of added.values()) s.register(m);
  try {
    // All of the group's records or none (a failed append is cut off again).
    seqs = s.writing(() => s.log.appendGroup(rows.length, (i) => encodeLogBody(rows[i]!, s.logScratch), s.now()));
  } catch (e) {
    for (const g of group) g.reject(e);
    return;
  }
  const sync = s.walSync;
  if (!sync) {
    applyGroup(s, group, rows, rowMetas, seqs);
    return;
  }
  // Points become readable, and writes are answered, once the log is on disk (wal-sync.ts).
  s.unapplied.push(seqs[0]!);
  // New series' rows must be on disk with the points that name them.
  sync.afterCommit(created).then(
    () => applyGroup(s, group, rows, rowMetas, seqs),
    (e) => applyGroup(s, group, rows, rowMetas, seqs, e),
  );
}

/** The sids of `metas`, in their order (a log body's series column). */
function sidsOf(metas: readonly SeriesMeta[]): number[] {
  const out = new Array<number>(metas.length);
  for (let i = 0; i < metas.length; i++) out[i] = metas[i]!.sid;
  return out;
}

/**
 * The series of a columnar write's entries. Where the write carries slots (remote write's series
 * objects, one per id for good), the handle kept in an entry's slot is taken when it is this
 * store's, of this tenant, type and id, and still registered; otherwise the series is looked up
 * (or inserted) as for any write and its handle kept in the slot for the next write. A series
 * inserted here is registered only if the commit succeeds: until then its handle does not hold.
 */
function columnMetas(
  s: StoreState,
  tenant: string,
  cols: WriteColumns,
  metaOf: (tenant: string, type: MetricType, id: string, known: ByIdTable<SeriesMeta> | undefined, added: Map<string, SeriesMeta>) => SeriesMeta,
  addedOf: (k: string) => Map<string, SeriesMeta>,
): SeriesMeta[] {
  const { type, ids, slots } = cols;
  readMetasAhead(slots);
  const k = kindKey(tenant, type);
  let known: ByIdTable<SeriesMeta> | undefined;
  let added: Map<string, SeriesMeta> | undefined;
  const out = new Array<SeriesMeta>(ids.length);
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    const slot = slots?.[i];
    if (slot !== undefined && slot.storeOwner === s) {
      const m = slot.storeHandle as SeriesMeta;
      if (isLive(m) && m.id === id && m.tenant === tenant && m.type === type) {
        out[i] = m;
        continue;
      }
    }
    if (added === undefined) {
      known = s.byKind.get(k);
      added = addedOf(k);
    }
    const m = metaOf(tenant, type, id, known, added);
    out[i] = m;
    if (slot !== undefined) {
      slot.storeOwner = s;
      slot.storeHandle = m;
    }
  }
  return out;
}

/**
 * Applies a committed group's bodies to the heads and answers its writes (rejected with
 * `failed` when the log could not be synced: the points are committed, so they are applied
 * all the same, and a writer that retries writes them again, which changes nothing).
 */
function applyGroup(s: StoreState, group: PendingWrite[], rows: LogBody[], rowMetas: SeriesMeta[][], seqs: number[], failed?: unknown): void {
  if (s.walSync) s.unapplied.shift();
  readHeadsAhead(rowMetas);
  const now = s.now();
  let full = false;
  for (let i = 0; i < rows.length; i++) full = applyBody(s, rows[i]!, seqs[i]!, now, rowMetas[i]).full || full;
  for (const g of group) {
    if (failed === undefined) g.resolve();
    else g.reject(failed);
  }
  // A head about to outgrow the largest chunk is sealed now rather than at the next maintenance
  // round: under fast ingest a second's points would double its arrays again (issue 16's peak RSS).
  if (s.headPoints > s.opts.maxHeadPoints || full) scheduleFlush(s);
}

/**
 * Head length at which a flush is due at once: nearly the largest piece chunkPieces cuts
 * (2 × chunkPoints − 1), so chunks stay as large, and as well compressed, as under the
 * maintenance round, while the head's arrays stay within 2 × chunkPoints.
 */
export function sealAt(chunkPoints: number): number {
  return 2 * chunkPoints - Math.ceil(chunkPoints / 16);
}

/**
 * Appends the points of a log body to the series heads; skips series flushed past `seq`, and
 * series deleted since. `metas[k]`: the series of entry k as the commit found it (absent when
 * replaying the log: looked up by sid); one unregistered since is deleted.
 */
function applyBody(s: StoreState, b: LogBody, seq: number, now: number, metas?: SeriesMeta[]): { applied: number; full: boolean } {
  const tags = b.tags.length ? new Map(b.tags) : undefined;
  let o = 0;
  let si = 0;
  let applied = 0;
  let full = false;
  for (let k = 0; k < b.sids.length; k++) {
    const count = b.counts[k]!;
    let n = count;
    const meta = metas ? (isLive(metas[k]!) ? metas[k] : undefined) : s.bySid.get(b.sids[k]!);
    const numeric = meta ? isNumeric(meta.type) : true;
    if (!meta || meta.flushedSeq >= seq) {
      if (!numeric) si += n;
      else if (!meta) {
        // Unknown series (deleted since): skip its string values, if it has any.
        if (b.strParts) si += b.strParts[k] ? n : 0;
        else for (let i = 0; i < n; i++) if (Number.isNaN(b.nums[o + i]!)) si++;
      }
      o += n;
      continue;
    }
    let head = meta.head;
    if (!head) meta.head = head = new SeriesHead(numeric, s.headSegments);
    if (head.length === 0) head.firstSeq = seq;
    const before = head.length;
    let min = meta.minTs ?? Number.POSITIVE_INFINITY;
    let max = meta.maxTs ?? Number.NEGATIVE_INFINITY;
    if (numeric && !tags && n > 0 && head.appendRun(b.ts, b.nums, o, n, seq, now)) {
      // Rising timestamps: the first is the least, the last the greatest.
      if (b.ts[o]! < min) min = b.ts[o]!;
      if (b.ts[o + n - 1]! > max) max = b.ts[o + n - 1]!;
      o += n;
      n = 0;
    }
    for (let i = 0; i < n; i++, o++) {
      const t = b.ts[o]!;
      head.append(t, numeric ? b.nums[o]! : b.strs[si++]!, tags?.get(o), seq, now);
      if (t < min) min = t;
      if (t > max) max = t;
    }
    meta.minTs = min;
    meta.maxTs = max;
    s.headPoints += head.length - before;
    s.appended += count;
    // A head with points is in `dirty` from its first point until it is sealed (or its series
    // deleted): only the first is added. Asking the set for every entry was a random access into
    // a table of 50,000 under remote write, per series and request (issue 28).
    if (before === 0 && head.length > 0) s.markDirty(meta);
    if (head.length >= s.opts.chunkPoints) {
      s.sizeDue = true;
      if (head.length >= sealAt(s.opts.chunkPoints)) full = true;
    }
    applied += count;
  }
  return { applied, full };
}

/** Applies a replayed body; new series get sids past those it names (StoreState.nextSid). */
function replayBody(s: StoreState, b: LogBody, seq: number, started: number): number {
  for (let k = 0; k < b.sids.length; k++) if (b.sids[k]! >= s.nextSid) s.nextSid = b.sids[k]! + 1;
  return applyBody(s, b, seq, started).applied;
}

/**
 * Replays the log batches not yet flushed (those of the old log table first, then the segment
 * files), yielding to the event loop every 256 batches so the HTTP server can answer 503
 * meanwhile; then the log takes appends. Returns what it replayed.
 */
export async function replayLog(s: StoreState, started: number): Promise<{ batches: number; points: number }> {
  let batches = 0;
  let points = 0;
  let after = 0;
  // Bodies are applied one at a time, each decoded into the same columns (log-body.ts).
  const scratch = new LogBodyScratch();
  const page = s.db.prepare("SELECT seq, body FROM ingest_log WHERE seq > ? ORDER BY seq LIMIT 256");
  for (;;) {
    const rows = page.all(after) as { seq: number; body: Uint8Array }[];
    if (rows.length === 0) break;
    s.legacyLog = true;
    for (const row of rows) {
      batches++;
      points += replayBody(s, decodeLogBody(row.body, scratch), row.seq, started);
      after = row.seq;
    }
    await new Promise<void>((r) => setImmediate(r));
  }
  // Sequences go on past every one given before: the table's, and each series' flushed one.
  let next = after + 1;
  const used = s.db.query("SELECT seq FROM sqlite_sequence WHERE name = 'ingest_log'").get() as { seq: number } | null;
  if (used && used.seq >= next) next = used.seq + 1;
  for (const m of s.bySid.values()) if (m.flushedSeq >= next) next = m.flushedSeq + 1;
  for (const r of s.log.open(next)) {
    // A head rebuilt from the log is as old as its first point's arrival (a clean stop leaves
    // the heads in the log): sealed when it would have been had the collector run on.
    points += replayBody(s, decodeLogBody(r.body, scratch), r.seq, r.arrivalMs !== undefined ? Math.min(r.arrivalMs, started) : started);
    if (++batches % 256 === 0) await new Promise<void>((r) => setImmediate(r));
  }
  releaseDecoderInput();
  return { batches, points };
}
