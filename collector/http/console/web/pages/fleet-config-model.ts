/**
 * The remote configuration editor's logic (docs/fleet.md), pure: targets written as text, the
 * feeds a target reaches, the revision those feeds run now, and the line diff the editor shows
 * against it.
 */
import type { ConfigTarget } from "../../../../../src/http/fleet/answers.ts";
import type { FeedSummary } from "./fleet-model.ts";

export type { ConfigTarget };

export interface ConfigRevision {
  revision: number;
  target: ConfigTarget;
  config: Record<string, unknown>;
  author: string;
  at: number;
  comment?: string;
}

/** "role=edge, site=paris" → the tags, or why not. */
export function parseTagsText(text: string): { tags: Record<string, string> } | { error: string } {
  const tags: Record<string, string> = {};
  const parts = text
    .split(/[,\s]+/)
    .map((p) => p.trim())
    .filter(Boolean);
  if (parts.length === 0) return { error: "Name at least one tag, as role=edge" };
  for (const p of parts) {
    const eq = p.indexOf("=");
    if (eq <= 0 || eq === p.length - 1) return { error: `“${p}” is not name=value` };
    tags[p.slice(0, eq)] = p.slice(eq + 1);
  }
  return { tags };
}

export function targetLabel(t: ConfigTarget): string {
  if ("all" in t) return "all feeds";
  if ("feed" in t) return `feed ${t.feed}`;
  return Object.entries(t.tags)
    .map(([k, v]) => `${k}=${v}`)
    .join(", ");
}

/** Whether the target reaches the feed (its tags are those its agent reported). */
export function reaches(t: ConfigTarget, f: Pick<FeedSummary, "feed" | "identity">): boolean {
  if ("all" in t) return true;
  if ("feed" in t) return t.feed === f.feed;
  const tags = f.identity?.tags ?? {};
  return Object.entries(t.tags).every(([k, v]) => tags[k] === v);
}

/** The revision most of the reached feeds run now (0: their local configuration), and how many run it. */
export function runningRevision(t: ConfigTarget, feeds: readonly FeedSummary[]): { revision: number; feeds: number; of: number } {
  const reached = feeds.filter((f) => reaches(t, f));
  const counts = new Map<number, number>();
  for (const f of reached) counts.set(f.config?.applied ?? 0, (counts.get(f.config?.applied ?? 0) ?? 0) + 1);
  let best = { revision: 0, feeds: 0 };
  for (const [revision, n] of counts) if (n > best.feeds || (n === best.feeds && revision > best.revision)) best = { revision, feeds: n };
  return { ...best, of: reached.length };
}

/** JSON with keys sorted at every level and two spaces: equal configurations print equal. */
export function canonicalJson(v: unknown): string {
  const sort = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.map(sort);
    if (x !== null && typeof x === "object") return Object.fromEntries(Object.keys(x).sort().map((k) => [k, sort((x as Record<string, unknown>)[k])]));
    return x;
  };
  return JSON.stringify(sort(v), null, 2);
}

export interface DiffLine {
  kind: " " | "+" | "-";
  text: string;
}

/** A line diff (longest common subsequence) from `before` to `after`. */
export function lineDiff(before: string, after: string): DiffLine[] {
  const a = before === "" ? [] : before.split("\n");
  const b = after === "" ? [] : after.split("\n");
  const n = a.length;
  const m = b.length;
  // lcs[i][j]: the longest common subsequence of a[i..] and b[j..]; configurations are small.
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      out.push({ kind: " ", text: a[i]! });
      i++;
      j++;
    } else if (i < n && (j >= m || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) out.push({ kind: "-", text: a[i++]! });
    else out.push({ kind: "+", text: b[j++]! });
  }
  return out;
}

/** The editor's text as a configuration, or the JSON error. */
export function parseConfigText(text: string): { config: Record<string, unknown> } | { error: string } {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    return { error: `Not JSON: ${(e as Error).message}` };
  }
  if (v === null || typeof v !== "object" || Array.isArray(v)) return { error: 'A configuration is an object: {"option": value, …}' };
  return { config: v as Record<string, unknown> };
}

/** How a revision fares across the feeds: how many should run it, run it, refused it. */
export function revisionCounts(revision: number, feeds: readonly FeedSummary[]): { desired: number; applied: number; failed: number } {
  const c = { desired: 0, applied: 0, failed: 0 };
  for (const f of feeds) {
    if (f.config?.desired === revision) {
      c.desired++;
      if (f.config.state === "FAILED") c.failed++;
    }
    if (f.config?.applied === revision) c.applied++;
  }
  return c;
}
