import type { CanonicalPath } from "./canonical-path.ts";
import { type HashNode, type HashTree, hashTree } from "./hash.ts";
import { resolvePath } from "./path-resolve.ts";
import { recordOf } from "./records.ts";
import type { InventoryStructure, StructureNode } from "./structure.ts";

/**
 * The hash tree a structure will have once synced at `rootPath` (the root keeps the id of the
 * path). Paths in blueprints are resolved against each entity's parent, as sync does, so an agent
 * can compare this with the collector's `treeHash` and skip a sync that would change nothing.
 * Throws PathError on a path that cannot be resolved.
 */
export function structureHashTree(structure: InventoryStructure, rootPath: CanonicalPath): HashTree {
  const tenant = rootPath.tenantId ?? "";
  const toNode = (n: StructureNode, path: CanonicalPath): HashNode => {
    const bp = n.blueprint;
    const typePath =
      bp.typePath === undefined
        ? undefined
        : resolvePath(bp.typePath, { tenant, origin: path.parent(), finalType: bp.type === "r" ? "rt" : "mt" });
    const entity = recordOf(bp, path, typePath);
    return { entity, children: n.children.map((c) => toNode(c, path.extend(c.blueprint.type, c.blueprint.id))) };
  };
  return hashTree(toNode(structure.root, rootPath));
}
