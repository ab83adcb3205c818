/** What a PointBuffer is given (point-buffer.ts): its limits and the hooks it reports through. */

export interface BufferLimits {
  /** Sum of chunk sizes above which the oldest chunks are dropped. */
  maxBytes: number;
  /** Chunks buffered longer than this are dropped. */
  maxAgeMs: number;
  /** Points per chunk at most; a chunk is never split across batches. */
  chunkPoints: number;
  /** How long acknowledged rows are kept for local reads (history-window.ts); 0 or absent: deleted at once. */
  historyMs?: number;
}

export type DropReason = "size" | "age" | "rejected";

export interface BufferEvents {
  /** New chunks were committed. */
  appended?: () => void;
  dropped?: (reason: DropReason, points: number, chunks: number) => void;
  /**
   * A commit failed (a full disk...). Returns true when something was done that may let a retry
   * succeed at once (the agent released its space reserve): removals are then retried at once.
   */
  writeFailed?: (e: unknown) => boolean;
  /** How the buffer's writes keep within the disk room the agent has (agent/storage.ts); none: no limit. */
  space?: BufferSpace;
  /** False while storage is in trouble: acknowledged rows are then deleted, not kept in the window. */
  keepAcked?: () => boolean;
}

/** See AgentStorage: how much one transaction may add, and what follows each commit. */
export interface BufferSpace {
  /** Chunk bytes one append transaction adds at most before it commits and the next begins. */
  stepBytes(): number;
  /** Called before every transaction that adds rows. */
  beforeWrite(): void;
  /** Called after every commit. */
  committed(): void;
}
