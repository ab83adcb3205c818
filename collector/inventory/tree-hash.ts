import { badRequest } from "../../src/http/errors.ts";
import type { CanonicalPath } from "../../src/inventory/canonical-path.ts";
import { type HashNode, hashTree, type TreeHashJson, treeHashJson } from "../../src/inventory/hash.ts";
import { isSyncable } from "../../src/inventory/segment-types.ts";
import { type Inventory, readOnly } from "./context.ts";
import { getExisting } from "./entities.ts";

/** The sync-hash tree of an entity and what it contains, computed afresh from the stored subtree. */
export function treeHash(inv: Inventory, tenant: string, path: CanonicalPath): Promise<TreeHashJson> {
  if (!isSyncable(path.type)) throw badRequest(`Element not syncable - cannot get treeHash for path ${path}`);
  return readOnly(inv, async (r) => {
    const root = await getExisting(r, tenant, path);
    const nodes = new Map<string, HashNode>([[root.path.toString(), { entity: root, children: [] }]]);
    // Descendants come parent-first (sorted by path), so a parent's node always exists already.
    for (const e of await r.descendants(tenant, path)) {
      const node: HashNode = { entity: e, children: [] };
      nodes.set(e.path.toString(), node);
      nodes.get(e.path.parent()!.toString())?.children.push(node);
    }
    return treeHashJson(hashTree(nodes.get(root.path.toString())!));
  });
}
