/** A feed's inventory as the traversal answers it, shaped into a tree of resources with their metrics. */

export interface EntityType {
  path: string;
  id: string;
  name?: string;
  metricDataType?: string;
  unit?: string;
  properties?: Record<string, unknown>;
}

export interface Entity {
  path: string;
  id: string;
  name?: string;
  properties?: Record<string, unknown>;
  type?: EntityType;
  collectionInterval?: number;
}

export interface ResourceNode {
  entity: Entity;
  children: ResourceNode[];
  metrics: Entity[];
}

/** The type code of a canonical path's last segment: `r`, `m`, `f`, `rt`, `mt`… */
export function kindOf(path: string): string {
  const last = path.slice(path.lastIndexOf("/") + 1);
  return last.slice(0, last.indexOf(";"));
}

export const parentOf = (path: string) => path.slice(0, path.lastIndexOf("/"));

const byName = (a: { entity: Entity }, b: { entity: Entity }) => (a.entity.name ?? a.entity.id).localeCompare(b.entity.name ?? b.entity.id, "en", { numeric: true });

/** Gauges (what a host is doing now) before counters and the rest, then by name. */
const KIND_ORDER: Record<string, number> = { gauge: 0, availability: 1, counter: 2, string: 3 };
function byKindThenName(a: Entity, b: Entity): number {
  const k = (KIND_ORDER[metricKind(a)] ?? 9) - (KIND_ORDER[metricKind(b)] ?? 9);
  return k !== 0 ? k : (a.name ?? a.id).localeCompare(b.name ?? b.id, "en", { numeric: true });
}

/**
 * Resources under the feed as a tree (over `contains`, by canonical path), each with the
 * metrics it contains; types are left out. Resources whose parent is not in the listing hang
 * from the root, so nothing is lost.
 */
export function buildTree(feedPath: string, entities: readonly Entity[]): ResourceNode[] {
  const nodes = new Map<string, ResourceNode>();
  for (const e of entities) if (kindOf(e.path) === "r") nodes.set(e.path, { entity: e, children: [], metrics: [] });
  const roots: ResourceNode[] = [];
  for (const n of nodes.values()) {
    const parent = nodes.get(parentOf(n.entity.path));
    if (parent) parent.children.push(n);
    else roots.push(n);
  }
  const loose: Entity[] = [];
  for (const e of entities) {
    if (kindOf(e.path) !== "m") continue;
    const parent = nodes.get(parentOf(e.path));
    if (parent) parent.metrics.push(e);
    else if (parentOf(e.path) === feedPath) loose.push(e);
  }
  const sort = (list: ResourceNode[]) => {
    list.sort(byName);
    for (const n of list) {
      n.metrics.sort(byKindThenName);
      sort(n.children);
    }
  };
  sort(roots);
  // Metrics directly under the feed get a node of their own.
  if (loose.length) roots.push({ entity: { path: `${feedPath}#metrics`, id: "feed metrics", name: "Feed metrics" }, children: [], metrics: loose });
  return roots;
}

/** Every node of the tree, depth first, with its depth (for keyboard moves over the visible ones). */
export function visibleNodes(roots: readonly ResourceNode[], expanded: ReadonlySet<string>): { node: ResourceNode; depth: number }[] {
  const out: { node: ResourceNode; depth: number }[] = [];
  const walk = (list: readonly ResourceNode[], depth: number) => {
    for (const n of list) {
      out.push({ node: n, depth });
      if (expanded.has(n.entity.path)) walk(n.children, depth + 1);
    }
  };
  walk(roots, 0);
  return out;
}

export function findNode(roots: readonly ResourceNode[], path: string): ResourceNode | undefined {
  for (const n of roots) {
    if (n.entity.path === path) return n;
    const hit = findNode(n.children, path);
    if (hit) return hit;
  }
  return undefined;
}

/** Paths from the root down to `path` (to expand what leads to a selected resource). */
export function ancestors(path: string): string[] {
  const out: string[] = [];
  let p = parentOf(path);
  while (p.includes("/r;")) {
    out.push(p);
    p = parentOf(p);
  }
  return out;
}

/** The metrics interface's type of an inventory metric (its metric type's data type). */
export function metricKind(m: Entity): "gauge" | "counter" | "availability" | "string" {
  const t = (m.type?.metricDataType ?? "gauge").toLowerCase();
  return t === "counter" || t === "availability" || t === "string" ? t : "gauge";
}
