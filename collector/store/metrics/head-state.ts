import { PointStream } from "../../../src/codec/point-stream.ts";
import type { Tags } from "../../../src/metrics/model.ts";
import { MIN_SEGMENT } from "./head-segments.ts";

/** `state` bits: the points are in timestamp order (sorted), and all in the stream (inStream); above them, refill. */
const SORTED = 1;
const IN_STREAM = 2;
const REFILL_SHIFT = 2;

/** What only string heads and heads with tags hold: one field of every head instead of two. */
interface HeadExtra {
  strs: string[] | undefined;
  tags: (Tags | undefined)[] | undefined;
}

/**
 * What a series' head (head.ts) knows of itself beside its points, in two fields: its flags and
 * the size of its next fill packed in one number, its strings and tags in one side object that
 * most heads do not have. Why: every field is 8 bytes of every series' head, and the head with
 * its stream fits the engine's 160-byte object only at 18 fields (issue 28, docs/storage.md
 * thirty-fourth part).
 */
export abstract class HeadState extends PointStream {
  /** SORTED, IN_STREAM and refill << REFILL_SHIFT (see the accessors below). */
  private state: number;
  /** Strings and tags, when the head holds either; undefined for most. */
  private extra: HeadExtra | undefined;

  constructor(numeric: boolean) {
    super();
    this.extra = numeric ? undefined : { strs: [], tags: undefined };
    this.state = SORTED | (numeric ? IN_STREAM : 0) | (MIN_SEGMENT << REFILL_SHIFT);
  }

  /** The points are in timestamp order, without repeats: an append that is not makes it false until normalize(). */
  get sorted(): boolean {
    return (this.state & SORTED) !== 0;
  }

  protected set sorted(v: boolean) {
    this.state = v ? this.state | SORTED : this.state & ~SORTED;
  }

  /**
   * Every point is in the stream (the PointStream this extends: its words are made at the first
   * point streamed and kept between fills), and no segment is held. A new numeric head starts
   * so: a series is presumed slow until a run of several points starts a fill, or it fills
   * FAST_POINTS within FREEZE_AFTER_MS (head.ts; then its points go to segments).
   */
  protected get inStream(): boolean {
    return (this.state & IN_STREAM) !== 0;
  }

  protected set inStream(v: boolean) {
    this.state = v ? this.state | IN_STREAM : this.state & ~IN_STREAM;
  }

  /** Capacity of the first segment of the next fill. */
  protected get refill(): number {
    return this.state >>> REFILL_SHIFT;
  }

  protected set refill(cap: number) {
    this.state = (this.state & (SORTED | IN_STREAM)) | (cap << REFILL_SHIFT);
  }

  /** A string head's values (undefined for a numeric head). */
  get strs(): string[] | undefined {
    return this.extra?.strs;
  }

  /** The points' tags, once any point was given tags (undefined for most heads). */
  get tags(): (Tags | undefined)[] | undefined {
    return this.extra?.tags;
  }

  /** Whether the head holds strings or tags. */
  protected get hasExtra(): boolean {
    return this.extra !== undefined;
  }

  protected setExtra(strs: string[] | undefined, tags: (Tags | undefined)[] | undefined): void {
    this.extra = strs === undefined && tags === undefined ? undefined : { strs, tags };
  }
}
