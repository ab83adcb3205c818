import type { MetricWrite } from "../../../../src/metrics/model.ts";
import { SeriesHead } from "../head.ts";
import { buildLogBody, decodeLogBody, encodeLogBody, type LogBody } from "../log-body.ts";
import { flushDue } from "./flush.ts";
import { isNumeric, key, type SeriesMeta, type StoreState } from "./state.ts";

/** The write path of the SQLite metrics store: group commit into the log, then the heads. */

/**
 * Queues the writes; every write that arrives in the same event-loop turn is committed in
 * one transaction (group commit), so concurrent requests share one fsync. Resolves after the
 * commit, when the points are also readable.
 */
export function write(s: StoreState, tenant: string, writes: MetricWrite[]): Promise<void> {
  if (!s.isReady) return Promise.reject(new Error("metrics store is not open"));
  const nonEmpty = writes.filter((w) => w.points.length > 0);
  if (nonEmpty.length === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    s.pending.push({ tenant, writes: nonEmpty, resolve, reject });
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
  const writes: MetricWrite[] = [];
  const metas: SeriesMeta[] = [];
  // Tenants and series this group creates: registered in memory only after the commit.
  const newTenants: string[] = [];
  const newSeries = new Map<string, SeriesMeta>();
  let seq = 0;
  let body: LogBody;
  try {
    s.writing(() =>
      s.db.transaction(() => {
        for (const g of group) {
          if (!newTenants.includes(g.tenant) && s.insertTenantRow(g.tenant)) newTenants.push(g.tenant);
          for (const w of g.writes) {
            const k = key(g.tenant, w.type, w.id);
            let m = s.series.get(k) ?? newSeries.get(k);
            if (!m) newSeries.set(k, (m = s.insertSeriesRow(g.tenant, w.type, w.id, undefined, undefined)));
            metas.push(m);
            writes.push(w);
          }
        }
        body = buildLogBody(
          writes,
          metas.map((m) => m.sid),
        );
        seq = Number(s.st.insertLog.run(encodeLogBody(body)).lastInsertRowid);
      })(),
    );
  } catch (e) {
    for (const g of group) g.reject(e);
    return;
  }
  for (const t of newTenants) s.tenants.set(t, { id: t });
  for (const m of newSeries.values()) s.register(m);
  const full = applyBody(s, body!, seq, s.now()).full;
  for (const g of group) g.resolve();
  // A head about to outgrow the largest chunk is sealed now rather than at the next maintenance
  // round: under fast ingest a second's points would double its arrays again (issue 16's peak RSS).
  if ((s.headPoints > s.opts.maxHeadPoints || full) && !s.flushScheduled) {
    s.flushScheduled = true;
    setImmediate(() => {
      s.flushScheduled = false;
      flushDue(s);
    });
  }
}

/**
 * Head length at which a flush is due at once: nearly the largest piece chunkPieces cuts
 * (2 × chunkPoints − 1), so chunks stay as large, and as well compressed, as under the
 * maintenance round, while the head's arrays stay within 2 × chunkPoints.
 */
export function sealAt(chunkPoints: number): number {
  return 2 * chunkPoints - Math.ceil(chunkPoints / 16);
}

/** Appends the points of a log body to the series heads; skips series flushed past `seq`. */
function applyBody(s: StoreState, b: LogBody, seq: number, now: number): { applied: number; full: boolean } {
  const tags = b.tags.length ? new Map(b.tags) : undefined;
  let o = 0;
  let si = 0;
  let applied = 0;
  let full = false;
  for (let k = 0; k < b.sids.length; k++) {
    const n = b.counts[k]!;
    const meta = s.bySid.get(b.sids[k]!);
    const numeric = meta ? isNumeric(meta.type) : true;
    if (!meta || meta.flushedSeq >= seq) {
      if (!numeric) si += n;
      else if (!meta) {
        // Unknown series (deleted since): its string values, if any, are NaN-marked in nums.
        for (let i = 0; i < n; i++) if (Number.isNaN(b.nums[o + i]!)) si++;
      }
      o += n;
      continue;
    }
    let head = meta.head;
    if (!head) meta.head = head = new SeriesHead(numeric);
    if (head.length === 0) meta.headFirstSeq = seq;
    const before = head.length;
    let min = meta.minTs ?? Number.POSITIVE_INFINITY;
    let max = meta.maxTs ?? Number.NEGATIVE_INFINITY;
    for (let i = 0; i < n; i++, o++) {
      const t = b.ts[o]!;
      head.append(t, numeric ? b.nums[o]! : b.strs[si++]!, tags?.get(o), seq, now);
      if (t < min) min = t;
      if (t > max) max = t;
    }
    meta.minTs = min;
    meta.maxTs = max;
    s.headPoints += head.length - before;
    s.dirty.add(meta);
    if (head.length >= sealAt(s.opts.chunkPoints)) full = true;
    applied += n;
  }
  return { applied, full };
}

/**
 * Replays the log batches not yet flushed, in pages, yielding to the event loop between
 * pages so the HTTP server can answer 503 meanwhile. Returns what it replayed.
 */
export async function replayLog(s: StoreState, started: number): Promise<{ batches: number; points: number }> {
  let batches = 0;
  let points = 0;
  let after = 0;
  const page = s.db.prepare("SELECT seq, body FROM ingest_log WHERE seq > ? ORDER BY seq LIMIT 256");
  for (;;) {
    const rows = page.all(after) as { seq: number; body: Uint8Array }[];
    if (rows.length === 0) break;
    for (const row of rows) {
      batches++;
      points += applyBody(s, decodeLogBody(row.body), row.seq, started).applied;
      after = row.seq;
    }
    await new Promise<void>((r) => setImmediate(r));
  }
  return { batches, points };
}
