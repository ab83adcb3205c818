import { ApiError } from "../../src/http/errors.ts";
import { CanonicalPath } from "../../src/inventory/canonical-path.ts";
import type { MetricDataType } from "../../src/inventory/model.ts";
import { PathError } from "../../src/inventory/path-codec.ts";
import { resolvePath } from "../../src/inventory/path-resolve.ts";
import { type InventoryStructure, parseStructure, type StructureNode } from "../../src/inventory/structure.ts";
import type { MetricType, Tags } from "../../src/metrics/model.ts";
import type { Inventory } from "../inventory/context.ts";
import { asApiError } from "../inventory/failures.ts";
import { syncStructure } from "../inventory/sync.ts";
import type { MetricsStore } from "../store/metrics/types.ts";

/** Thrown for a structure that would be refused again: the agent is told, and does not resend it. */
export class InventoryRefused extends Error {}

const METRIC_TYPE_OF: Partial<Record<MetricDataType, MetricType>> = { GAUGE: "gauge", COUNTER: "counter", AVAILABILITY: "availability" };

interface MetricDefinitionFromInventory {
  type: MetricType;
  id: string;
  tags: Tags;
}

/**
 * Metric definitions described by a feed's structure: every metric whose metric type is in the
 * structure gets a definition of that data type whose tags are the metric's string properties.
 */
export function metricDefinitionsOf(s: InventoryStructure, rootPath: CanonicalPath): MetricDefinitionFromInventory[] {
  const tenant = rootPath.tenantId ?? "";
  const types = new Map<string, MetricDataType>();
  const metrics: { node: StructureNode; path: CanonicalPath }[] = [];
  const walk = (n: StructureNode, path: CanonicalPath) => {
    for (const c of n.children) {
      const p = path.extend(c.blueprint.type, c.blueprint.id);
      if (c.blueprint.type === "mt" && c.blueprint.metricDataType) types.set(p.toString(), c.blueprint.metricDataType);
      if (c.blueprint.type === "m") metrics.push({ node: c, path: p });
      walk(c, p);
    }
  };
  walk(s.root, rootPath);
  const out: MetricDefinitionFromInventory[] = [];
  for (const { node, path } of metrics) {
    const bp = node.blueprint;
    if (bp.typePath === undefined) continue;
    const typePath = resolvePath(bp.typePath, { tenant, origin: path.parent(), finalType: "mt" });
    const dataType = types.get(typePath.toString());
    const type = dataType && METRIC_TYPE_OF[dataType];
    if (!type) continue;
    const tags: Tags = {};
    for (const [k, v] of Object.entries(bp.properties ?? {})) if (typeof v === "string") tags[k] = v;
    out.push({ type, id: bp.id, tags });
  }
  return out;
}

/**
 * Applies an agent's inventory structure at its feed, with the code of `POST /sync`, then
 * records the metric definitions and tags it describes. Throws InventoryRefused for a
 * structure that cannot be applied; other errors (storage) are worth a retry.
 */
export async function applyAgentInventory(
  deps: { inventory: Inventory; store: MetricsStore },
  tenant: string,
  feed: string,
  structureJson: unknown,
): Promise<{ metrics: number }> {
  const rootPath = CanonicalPath.of([
    { type: "t", id: tenant },
    { type: "f", id: feed },
  ]);
  let structure: InventoryStructure;
  let definitions: MetricDefinitionFromInventory[];
  try {
    structure = parseStructure(structureJson);
    definitions = metricDefinitionsOf(structure, rootPath);
  } catch (e) {
    throw new InventoryRefused(describeError(e));
  }
  try {
    await syncStructure(deps.inventory, tenant, rootPath, {
      configuration: { syncedTypes: ["f", "rt", "mt", "ot", "r", "m", "d"], deepSearch: false },
      structure,
    });
  } catch (e) {
    const err = asApiError(e);
    if (err instanceof ApiError && err.status < 500) throw new InventoryRefused(err.message);
    throw e;
  }
  for (const d of definitions) await deps.store.updateTags(tenant, d.type, d.id, d.tags);
  return { metrics: definitions.length };
}

function describeError(e: unknown): string {
  if (e instanceof PathError) return e.message;
  if (e && typeof e === "object" && "issues" in e && Array.isArray(e.issues)) {
    return (e.issues as { path: PropertyKey[]; message: string }[])
      .slice(0, 3)
      .map((i) => `${i.path.join(".") || "structure"}: ${i.message}`)
      .join("; ");
  }
  return String(e);
}
