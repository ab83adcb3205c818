import { notFound } from "../../src/http/errors.ts";
import type { CanonicalPath } from "../../src/inventory/canonical-path.ts";
import { type Inventory, mutate } from "./context.ts";
import { getExisting } from "./entities.ts";
import { link, unlink } from "./relationships.ts";

/*
 * Associations of the earlier interface: an entity "has" other entities through a named
 * relationship (an environment incorporates feeds, a resource type incorporates metric types, a
 * resource incorporates metrics). Built on the same relationship rules as everything else.
 */

/** Links `source` to every target with `name`, all or nothing; an existing link is left as it is. */
export async function associate(
  inv: Inventory,
  tenant: string,
  source: CanonicalPath,
  name: string,
  targets: CanonicalPath[],
): Promise<void> {
  await mutate(inv, tenant, async (tx, changes) => {
    await getExisting(tx, tenant, source);
    for (const target of targets) {
      if (await tx.findRelationship(tenant, source, name, target)) continue;
      await link(tx, changes, { source, name, target });
    }
  });
}

/** Removes the `name` link from `source` to `target`; 404 when there is none. */
export async function disassociate(
  inv: Inventory,
  tenant: string,
  source: CanonicalPath,
  name: string,
  target: CanonicalPath,
): Promise<void> {
  await mutate(inv, tenant, async (tx, changes) => {
    const rel = await tx.findRelationship(tenant, source, name, target);
    if (!rel) throw notFound(`${target} is not associated with ${source}`);
    await unlink(tx, changes, rel.id);
  });
}
