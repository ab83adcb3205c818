/**
 * The worker thread of rollup-offload.ts: computes the roller's steps (the blocks a series'
 * new chunks change) on a read-only connection of its own to metrics.db and answers them
 * encoded; the store writes them on its own connection (collector/store/metrics/sqlite/rollups.ts).
 */
import { Database } from "bun:sqlite";
import { ByteWriter } from "../../src/codec/bytes.ts";
import { storedBody } from "../../src/metrics/rollup/block-segments.ts";
import { RollScratch } from "../../src/metrics/rollup/rows-builder.ts";
import type { RemoteSteps } from "../store/metrics/sqlite/rollup-remote.ts";
import { computeSeriesStep } from "../store/metrics/sqlite/rollup-series.ts";
import { ChunkSource } from "../store/metrics/sqlite/rollup-source.ts";
import type { RollupReply, RollupRequest } from "./rollup-offload.ts";

declare const self: Worker;

let open: { path: string; db: Database; source: ChunkSource } | undefined;
/** The store's time for the request being computed (tests run the store on a clock of their own). */
let now = 0;
let corrupt: [number, number, string][] = [];
const scratch = new RollScratch();
const encoder = new ByteWriter(64 * 1024);

function sourceFor(path: string): ChunkSource {
  if (open?.path === path) return open.source;
  open?.db.close();
  const db = new Database(path, { readonly: true });
  db.exec("PRAGMA busy_timeout = 5000");
  // Chunks are read once each; a small page cache (4 MB) is enough for the indexes.
  db.exec("PRAGMA cache_size = -4096");
  const source = new ChunkSource(db, { now: () => now, corrupt: (sid, cid, why) => corrupt.push([sid, cid, why]) });
  open = { path, db, source };
  return source;
}

function compute(q: RollupRequest): RemoteSteps {
  const started = performance.now();
  const source = sourceFor(q.path);
  now = q.now;
  corrupt = [];
  const steps = q.steps.map((step) => {
    const r = computeSeriesStep(source, q.tiers, scratch, step);
    return {
      sid: r.sid,
      end: r.end,
      done: r.done,
      chunks: r.chunks,
      // Copied out of the encoder (reused block after block) and of the scratch (reset next step).
      blocks: r.changes.map((c) => ({ tier: c.tier, start: c.start, body: c.rows.n === 0 ? undefined : storedBody(c.rows, c.from, c.old, c.start, q.tiers[c.tier]!.step, encoder).slice() })),
    };
  });
  return { steps, corrupt, seconds: (performance.now() - started) / 1000 };
}

self.onmessage = (ev: MessageEvent<RollupRequest>) => {
  const q = ev.data;
  if (q.close) {
    // The store has closed: its database is left as a clean stop leaves it (no reader of ours holds its log).
    open?.db.close();
    open = undefined;
    self.postMessage({ id: q.id, ok: true, steps: [], corrupt: [], seconds: 0 } satisfies RollupReply);
    return;
  }
  let reply: RollupReply;
  try {
    reply = { id: q.id, ok: true, ...compute(q) };
  } catch (e) {
    // A connection that failed (the database replaced, a corrupt page) is opened again next time.
    open?.db.close();
    open = undefined;
    reply = { id: q.id, ok: false, error: String(e) };
  }
  self.postMessage(reply);
};
