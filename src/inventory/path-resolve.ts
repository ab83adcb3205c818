import { CanonicalPath, type Segment, splitSegments } from "./canonical-path.ts";
import { decodeId, PathError } from "./path-codec.ts";
import { isSegmentCode, type SegmentCode, VALID_PROGRESSIONS } from "./segment-types.ts";

export interface ResolveOptions {
  /** The tenant of the request; tenantless absolute paths are placed under it. */
  tenant: string;
  /** What relative paths (no leading `/`) are resolved against; without it they are invalid. */
  origin?: CanonicalPath;
  /** The type the last segment should have; lets an untyped last segment (`"x"`) be read as that type. */
  finalType?: SegmentCode;
}

/**
 * Resolves a path as users write it into a canonical path (research §3.2):
 * - `/t;T/e;E` is canonical; `/e;E` is tenantless and is put under the request tenant;
 * - `rt;x`, `../rt;x` are relative to `origin` (`..` goes up one level);
 * - a segment without a type (`x`) takes the only type that can lead to `finalType` from there.
 */
export function resolvePath(text: string, opts: ResolveOptions): CanonicalPath {
  if (text === "") throw new PathError("Empty path");
  const absolute = text.startsWith("/");
  const parts = splitSegments(absolute ? text.slice(1) : text);
  const segments: Segment[] = [];
  if (absolute) {
    const first = parts[0];
    // A leading typed `t;` or `rl;` segment makes the path fully canonical; anything else is tenantless.
    if (first === undefined || !(first.startsWith("t;") || first.startsWith("rl;"))) {
      segments.push({ type: "t", id: opts.tenant });
    }
  } else {
    if (!opts.origin) throw new PathError(`Relative path '${text}' cannot be resolved here`);
    segments.push(...opts.origin.segments);
  }
  parts.forEach((part, i) => {
    if (part === "..") {
      if (absolute) throw new PathError(`'..' is not allowed in the absolute path '${text}'`);
      if (segments.length === 0) throw new PathError(`Path '${text}' goes above the root`);
      segments.pop();
      return;
    }
    if (part === ".") return;
    segments.push(parseSegment(part, segments[segments.length - 1]?.type, i === parts.length - 1, opts.finalType, text));
  });
  return CanonicalPath.of(segments);
}

function parseSegment(
  part: string,
  current: SegmentCode | undefined,
  isLast: boolean,
  finalType: SegmentCode | undefined,
  whole: string,
): Segment {
  const semi = part.indexOf(";");
  if (semi > 0) {
    const code = part.slice(0, semi);
    if (!isSegmentCode(code)) throw new PathError(`Unknown segment type '${code}' in '${whole}'`);
    const id = decodeId(part.slice(semi + 1));
    if (id === "") throw new PathError(`Empty id in '${whole}'`);
    return { type: code, id };
  }
  if (semi === 0) throw new PathError(`Segment '${part}' of '${whole}' has an empty type`);
  const type = deduceType(current, isLast, finalType);
  if (!type) throw new PathError(`Cannot tell the type of the untyped segment '${part}' in '${whole}'`);
  return { type, id: decodeId(part) };
}

/** The only next type that can (eventually) reach `target`, or undefined when ambiguous or impossible. */
function deduceType(current: SegmentCode | undefined, isLast: boolean, target: SegmentCode | undefined): SegmentCode | undefined {
  if (!target) return undefined;
  const next = VALID_PROGRESSIONS[current ?? "root"];
  if (isLast) return next.includes(target) ? target : undefined;
  const candidates = next.filter((n) => n === target || reaches(n, target, new Set()));
  return candidates.length === 1 ? candidates[0] : undefined;
}

function reaches(from: SegmentCode, target: SegmentCode, seen: Set<SegmentCode>): boolean {
  if (seen.has(from)) return false;
  seen.add(from);
  return VALID_PROGRESSIONS[from].some((n) => n === target || reaches(n, target, seen));
}
