import { closeSync, constants, fdatasyncSync, ftruncateSync, openSync, readdirSync, unlinkSync, writeSync, writevSync } from "node:fs";
import { join } from "node:path";
import { makePrivateDir } from "../../../../src/fs/private-files.ts";
import { syncPath } from "../../../../src/fs/sync-path.ts";
import { HEADER, MAGIC, segmentRecords } from "./log-records.ts";

/**
 * The metrics store's ingest log: the bodies of committed write groups, appended to segment
 * files until their points are in chunks (issue 28). It was a table of metrics.db; each body
 * then went into the database's write-ahead log, was copied again into the database file by a
 * checkpoint and its pages freed when flushed, and every group was a SQLite transaction: a
 * fifth of the main thread under HTTP ingest, and a third of the kernel's time. A segment is
 * written once, synced, and deleted whole.
 *
 * A record: magic, CRC-32 (of what follows it), body length, arrival (whole seconds since the
 * epoch; 0 in records written before it was kept), sequence (float64), body. The arrival gives
 * the heads rebuilt from the log at start their age, so that a restart does not postpone sealing.
 * Reading a segment stops at a record cut short or failing its check with no whole record after
 * it (a write torn by a crash or a full disk): nothing after it was acknowledged, since appends
 * go in order and each is answered only once synced. A damaged record followed by whole ones is
 * skipped (and counted). Segments are named by their first sequence.
 *
 * The active segment is written ahead with zeros, a megabyte at a time, and records go into
 * that prepared space at their offset. Why: each acknowledged group waits for a sync of the
 * segment, and a sync of a file that grew also writes its inode and the new blocks' allocation
 * (three device requests instead of one; on the test VM each request is a costly exit to the
 * hypervisor). Into space already written, a data-only sync (fdatasync) writes just the data:
 * the process' system time under remote write fell by a fifth. A read stops at the zeros as
 * at any unwritten end. Once the disk is full, the prepared space still takes appends.
 */

/** The log's folder in the data folder (backups copy it too). */
export const INGEST_LOG_DIR = "metrics-log";
/** A segment is closed, and the next opened, past this size. */
const SEGMENT_BYTES = 64 * 1024 * 1024;
/** Zeros written ahead of the appends at a time (at most a segment's size). */
const PREPARE_BYTES = 1024 * 1024;
let zeros: Uint8Array | undefined;
const NAME = /^(\d{16})\.log$/;

interface Segment {
  first: number;
  path: string;
  /** Sequence of its last record (first − 1 while empty). */
  last: number;
  /** Open while it is the active segment, and after it until it is deleted. */
  fd?: number;
  /** Its deletion awaits the flush's commit on disk. */
  dropping?: boolean;
}

/** A failed append as SQLite would report it: a full disk is SQLITE_FULL, anything else an I/O error. */
function appendError(e: unknown): Error {
  const code = (e as NodeJS.ErrnoException)?.code;
  const err = new Error(`appending to the metrics ingest log failed: ${(e as Error)?.message ?? String(e)}`);
  (err as Error & { code: string }).code = code === "ENOSPC" || code === "EDQUOT" ? "SQLITE_FULL" : "SQLITE_IOERR_WRITE";
  return err;
}

/** What the store does for the log: make its flushes durable before segments go, close a segment's descriptor. */
export interface IngestLogHooks {
  /** Resolves once the database's commits made so far are on disk. */
  durable: () => Promise<void>;
  /** Closes a deleted segment's descriptor (after any sync running on it). */
  closeFd: (fd: number) => void;
}

export class IngestLog {
  readonly dir: string;
  private segments: Segment[] = [];
  private size = 0;
  /** Bytes of the active segment written (as zeros, or as records) so far: appends below it need no allocation. */
  private prepared = 0;
  private next = 1;
  /** Sequences of the records not yet dropped, in order (from `liveHead` on). */
  private live: number[] = [];
  private liveHead = 0;
  private readonly header = new Uint8Array(HEADER);
  /** Damaged stretches skipped while reading (not a torn tail: a whole record followed them). */
  damaged = 0;
  private readonly headerView = new DataView(this.header.buffer);

  constructor(
    dataDir: string,
    /** FULL: a segment is synced before the next one takes appends (the store syncs the active one). */
    private readonly synchronous: "FULL" | "NORMAL",
    private readonly hooks: IngestLogHooks,
    private readonly segmentBytes = SEGMENT_BYTES,
  ) {
    this.dir = join(dataDir, INGEST_LOG_DIR);
  }

  /**
   * The records on disk, oldest first, each body a view valid until the next is yielded; then
   * opens a new active segment numbered after them and after `minNext` (the store's own lower
   * bound: its flushed sequences and the old log table's).
   */
  *open(minNext: number): Generator<{ seq: number; body: Uint8Array; arrivalMs?: number }> {
    makePrivateDir(this.dir);
    const names = readdirSync(this.dir)
      .map((n) => NAME.exec(n))
      .filter((m): m is RegExpExecArray => m !== null)
      .sort((a, b) => Number(a[1]) - Number(b[1]));
    this.next = minNext;
    for (const m of names) {
      const seg: Segment = { first: Number(m[1]), path: join(this.dir, m[0]), last: Number(m[1]) - 1 };
      this.segments.push(seg);
      if (seg.first > this.next) this.next = seg.first;
      for (const r of segmentRecords(seg.path, () => this.damaged++)) {
        seg.last = r.seq;
        if (r.seq >= this.next) this.next = r.seq + 1;
        this.live.push(r.seq);
        yield { seq: r.seq, body: r.body, arrivalMs: r.arrived > 0 ? r.arrived * 1000 : undefined };
      }
    }
    // Appends never follow a torn record: a new segment takes them (an empty last one is reused).
    const last = this.segments[this.segments.length - 1];
    if (last && last.last < last.first && last.first === this.next) this.segments.pop();
    this.openSegment();
  }

  /** The sequence the next append gets. */
  get nextSeq(): number {
    return this.next;
  }

  /** Records not yet dropped (for the store's stats). */
  get records(): number {
    return this.live.length - this.liveHead;
  }

  /** The active segment's descriptor (the store syncs it after commits). */
  get activeFd(): number | undefined {
    return this.segments[this.segments.length - 1]?.fd;
  }

  /**
   * Appends `n` bodies (`bodyOf(i)` may reuse one buffer: each is written before the next is
   * asked for); returns their sequences. All or none: on a failure (a storage failure is thrown)
   * what was written of them is cut off again.
   */
  appendGroup(n: number, bodyOf: (i: number) => Uint8Array, arrivalMs = 0): number[] {
    if (this.size >= this.segmentBytes) {
      try {
        this.rotate();
      } catch (e) {
        // No room for a new file, or the old one's sync failed: refused, the active one stays.
        throw appendError(e);
      }
    }
    const seg = this.segments[this.segments.length - 1];
    if (seg?.fd === undefined) throw new Error("the ingest log is not open");
    const start = { size: this.size, next: this.next, last: seg.last, live: this.live.length };
    const seqs = new Array<number>(n);
    try {
      const arrived = Math.min(0xffff_ffff, Math.max(0, Math.floor(arrivalMs / 1000)));
      for (let i = 0; i < n; i++) seqs[i] = this.append(seg, bodyOf(i), arrived);
    } catch (e) {
      this.size = start.size;
      this.next = start.next;
      seg.last = start.last;
      this.live.length = start.live;
      // A partial record would stop every later read of this segment: cut it off again.
      try {
        // The prepared zeros go too: a whole record of this group left in them would be read back.
        ftruncateSync(seg.fd!, start.size);
        this.prepared = start.size;
      } catch {
        // Cannot cut it: the next group goes to a new segment (reading stops at the torn record).
        this.size = this.segmentBytes;
      }
      throw appendError(e);
    }
    return seqs;
  }

  private append(seg: Segment, body: Uint8Array, arrived: number): number {
    const seq = this.next;
    const h = this.headerView;
    h.setUint32(0, MAGIC, true);
    h.setUint32(8, body.length, true);
    h.setUint32(12, arrived, true);
    h.setFloat64(16, seq, true);
    h.setUint32(4, Bun.hash.crc32(body, Bun.hash.crc32(this.header.subarray(8))), true);
    const total = HEADER + body.length;
    const at = this.size;
    if (at + total > this.prepared) this.prepare(seg.fd!, at + total);
    let n = writevSync(seg.fd!, [this.header, body], at);
    // A short write (a disk filling up): the rest is tried, which then says why it fails.
    while (n < total) {
      const w = n < HEADER ? writeSync(seg.fd!, this.header, n, HEADER - n, at + n) : writeSync(seg.fd!, body, n - HEADER, total - n, at + n);
      if (w <= 0) throw Object.assign(new Error(`short write (${n} of ${total} bytes)`), { code: "EIO" });
      n += w;
    }
    this.size += total;
    if (this.size > this.prepared) this.prepared = this.size;
    seg.last = seq;
    this.next = seq + 1;
    this.live.push(seq);
    return seq;
  }

  /**
   * Writes zeros from the prepared end to at least `end` (a step ahead). Not done on a full
   * disk: what was written of them is cut off again, and the append goes on without them.
   */
  private prepare(fd: number, end: number): void {
    const step = Math.min(PREPARE_BYTES, this.segmentBytes);
    const to = Math.max(end, this.prepared + step);
    const z = (zeros ??= new Uint8Array(PREPARE_BYTES));
    let at = this.prepared;
    try {
      while (at < to) {
        const w = writeSync(fd, z, 0, Math.min(z.length, to - at), at);
        if (w <= 0) throw new Error("short write");
        at += w;
      }
      this.prepared = to;
    } catch {
      try {
        ftruncateSync(fd, this.size);
      } catch {}
      this.prepared = this.size;
    }
  }

  /**
   * Forgets the records before `seq` (their points are in chunks), and once the chunks' commit
   * is on disk (hooks.durable) deletes the segments that hold nothing else.
   */
  dropBefore(seq: number): void {
    while (this.liveHead < this.live.length && this.live[this.liveHead]! < seq) this.liveHead++;
    if (this.liveHead > 4096 && this.liveHead * 2 > this.live.length) {
      this.live.splice(0, this.liveHead);
      this.liveHead = 0;
    }
    const active = this.segments[this.segments.length - 1];
    const done = this.segments.filter((g) => g !== active && g.last < seq && !g.dropping);
    if (done.length === 0) return;
    for (const g of done) g.dropping = true;
    this.hooks.durable().then(
      () => this.remove(done),
      () => {
        // Not known to be on disk: a later flush tries again.
        for (const g of done) g.dropping = false;
      },
    );
  }

  /** Deletes every segment, the active one included, when nothing is left in them (a clean stop). */
  dropAll(): void {
    if (this.records > 0) return;
    this.rotate();
    this.remove(this.segments.slice(0, -1));
  }

  private remove(done: Segment[]): void {
    for (const g of done) {
      const k = this.segments.indexOf(g);
      if (k < 0) continue;
      this.segments.splice(k, 1);
      try {
        unlinkSync(g.path);
      } catch {}
      if (g.fd !== undefined) this.hooks.closeFd(g.fd);
      g.fd = undefined;
    }
  }

  /** Closes the active segment (synced first under FULL) and opens the next; an empty one stays. */
  private rotate(): void {
    const old = this.segments[this.segments.length - 1];
    if (old && old.fd !== undefined && old.last < old.first) return;
    // Groups appended to it may be waiting for the store's next sync, which syncs the new one.
    if (old?.fd !== undefined && this.synchronous === "FULL") fdatasyncSync(old.fd);
    this.openSegment();
  }

  private openSegment(): void {
    const path = join(this.dir, `${String(this.next).padStart(16, "0")}.log`);
    // Created empty; records are written at their offsets, into zeros written ahead (prepare).
    const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC, 0o600);
    try {
      // The new file's name must be on disk before anything appended to it is acknowledged.
      syncPath(this.dir);
    } catch (e) {
      closeSync(fd);
      throw e;
    }
    this.segments.push({ first: this.next, path, last: this.next - 1, fd });
    this.size = 0;
    this.prepared = 0;
  }

  close(): void {
    for (const g of this.segments) {
      if (g.fd !== undefined) closeSync(g.fd);
      g.fd = undefined;
    }
  }
}
