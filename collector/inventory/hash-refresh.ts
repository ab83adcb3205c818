import type { CanonicalPath } from "../../src/inventory/canonical-path.ts";
import { compareJava } from "../../src/inventory/java-strings.ts";
import { computeHashes } from "../../src/inventory/hash.ts";
import type { EntityRecord } from "../../src/inventory/model.ts";
import { type EntityCode, isSyncable } from "../../src/inventory/segment-types.ts";
import type { InventoryTx } from "../store/inventory/types.ts";
import type { Changes } from "./changes.ts";
import { renderEntity } from "./render.ts";

/**
 * Recomputes the hashes of every touched entity and of its ancestors, deepest first, so each
 * entity is hashed from the already-updated hashes of its children. Only the changed branches
 * are read, never a whole feed. An entity whose identity hash changes gets an
 * `identity_hash_changed` event.
 */
export async function refreshHashes(tx: InventoryTx, changes: Changes): Promise<void> {
  const stale = new Map<string, CanonicalPath>();
  for (const p of changes.touched.values()) {
    for (let q: CanonicalPath | undefined = p; q; q = q.parent()) {
      if (q.entityType && isSyncable(q.entityType)) stale.set(q.toString(), q);
    }
  }
  const order = [...stale.values()].sort((a, b) => b.depth - a.depth);
  const tenant = changes.tenant;
  for (const path of order) {
    const e = await tx.getEntity(tenant, path);
    if (!e) continue;
    const kids = await tx.children(tenant, [path]);
    const hashes = computeHashes(e, childIdentities(kids));
    const before = e.hashes;
    if (before && before.syncHash === hashes.syncHash && before.identityHash === hashes.identityHash) continue;
    await tx.setHashes(tenant, path, hashes);
    if (before && before.identityHash !== hashes.identityHash) {
      const updated: EntityRecord = { ...e, hashes };
      changes.emit("identity_hash_changed", e.type, () => renderEntity(tx, tenant, updated));
    }
  }
  changes.touched.clear();
}

function childIdentities(kids: EntityRecord[]) {
  return {
    data: (role: string) => kids.find((k) => k.type === "d" && k.id === role)?.hashes?.identityHash,
    children: (type: EntityCode) =>
      kids
        .filter((k) => k.type === type && k.hashes)
        .sort((a, b) => compareJava(a.id, b.id))
        .map((k) => k.hashes!.identityHash),
  };
}
