import { decodeId, encodeId, PathError } from "./path-codec.ts";
import { canFollow, type EntityCode, isSegmentCode, type SegmentCode } from "./segment-types.ts";

export interface Segment {
  readonly type: SegmentCode;
  readonly id: string;
}

/**
 * An absolute path to an entity or relationship, e.g. `/t;acme/f;host1/r;cpu`. Immutable; every
 * instance is a valid progression of segment types (research §3.1).
 */
export class CanonicalPath {
  private constructor(readonly segments: readonly Segment[]) {}

  /** Builds a path from segments, checking the type progression. */
  static of(segments: readonly Segment[]): CanonicalPath {
    if (segments.length === 0) throw new PathError("A canonical path needs at least one segment");
    let prev: SegmentCode | undefined;
    for (const s of segments) {
      if (s.id === "") throw new PathError(`Empty id in a '${s.type}' segment`);
      if (!canFollow(prev, s.type)) {
        throw new PathError(
          prev === undefined
            ? `A canonical path cannot start with a '${s.type}' segment`
            : `A '${s.type}' segment cannot follow a '${prev}' segment`,
        );
      }
      prev = s.type;
    }
    return new CanonicalPath([...segments]);
  }

  static tenant(id: string): CanonicalPath {
    return CanonicalPath.of([{ type: "t", id }]);
  }

  /** Parses the string form (`/t;x/e;y`); every segment must be typed. */
  static parse(text: string): CanonicalPath {
    if (!text.startsWith("/")) throw new PathError(`'${text}' is not a canonical path: it must start with '/'`);
    return CanonicalPath.of(splitSegments(text.slice(1)).map(parseTypedSegment));
  }

  get depth(): number {
    return this.segments.length;
  }

  get last(): Segment {
    return this.segments[this.segments.length - 1]!;
  }

  get type(): SegmentCode {
    return this.last.type;
  }

  get id(): string {
    return this.last.id;
  }

  /** The tenant id, or undefined for a relationship path. */
  get tenantId(): string | undefined {
    const first = this.segments[0]!;
    return first.type === "t" ? first.id : undefined;
  }

  get entityType(): EntityCode | undefined {
    return this.type === "rl" ? undefined : this.type;
  }

  /** The parent path, or undefined for a top-level (tenant or relationship) path. */
  parent(): CanonicalPath | undefined {
    return this.segments.length > 1 ? new CanonicalPath(this.segments.slice(0, -1)) : undefined;
  }

  extend(type: SegmentCode, id: string): CanonicalPath {
    return CanonicalPath.of([...this.segments, { type, id }]);
  }

  /** True when `other` is strictly below this path. */
  isAncestorOf(other: CanonicalPath): boolean {
    if (other.segments.length <= this.segments.length) return false;
    return this.segments.every((s, i) => sameSegment(s, other.segments[i]!));
  }

  equals(other: CanonicalPath): boolean {
    return this.toString() === other.toString();
  }

  /** Relative path from `origin` to this path, e.g. `../rt;x` (`..` for each level up). */
  relativeTo(origin: CanonicalPath): string {
    let common = 0;
    const max = Math.min(this.segments.length, origin.segments.length);
    while (common < max && sameSegment(this.segments[common]!, origin.segments[common]!)) common++;
    const parts: string[] = [];
    for (let i = origin.segments.length; i > common; i--) parts.push("..");
    for (let i = common; i < this.segments.length; i++) parts.push(formatSegment(this.segments[i]!));
    return parts.join("/");
  }

  toString(): string {
    return `/${this.segments.map(formatSegment).join("/")}`;
  }

  /** The string form without the leading tenant segment (as used in URLs under the tenant). */
  tenantless(): string {
    const rest = this.segments[0]!.type === "t" ? this.segments.slice(1) : this.segments;
    return rest.map(formatSegment).join("/");
  }

  toJSON(): string {
    return this.toString();
  }
}

export function formatSegment(s: Segment): string {
  return `${s.type};${encodeId(s.id)}`;
}

function sameSegment(a: Segment, b: Segment): boolean {
  return a.type === b.type && a.id === b.id;
}

/** Splits on `/`; empty segments (`a//b`, trailing `/`) are invalid. */
export function splitSegments(text: string): string[] {
  if (text === "") return [];
  const parts = text.split("/");
  if (parts.some((p) => p === "")) throw new PathError(`Empty segment in path '${text}'`);
  return parts;
}

/** Parses `code;encodedId`. */
export function parseTypedSegment(text: string): Segment {
  const semi = text.indexOf(";");
  if (semi <= 0) throw new PathError(`Segment '${text}' has no type: expected <type>;<id>`);
  const code = text.slice(0, semi);
  if (!isSegmentCode(code)) throw new PathError(`Unknown segment type '${code}' in '${text}'`);
  const id = decodeId(text.slice(semi + 1));
  if (id === "") throw new PathError(`Segment '${text}' has an empty id`);
  return { type: code, id };
}
