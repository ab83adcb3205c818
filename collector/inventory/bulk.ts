// Namespace import: the named `z` export comes out undefined under vitest on Bun.
import * as z from "zod";
import { parseBlueprint, parseRelationshipBlueprint, type RelationshipBlueprint } from "../../src/inventory/blueprints.ts";
import { CanonicalPath } from "../../src/inventory/canonical-path.ts";
import { resolvePath } from "../../src/inventory/path-resolve.ts";
import type { EntityCode } from "../../src/inventory/segment-types.ts";
import type { InventoryTx } from "../store/inventory/types.ts";
import type { Changes } from "./changes.ts";
import { type Inventory, mutate } from "./context.ts";
import { createEntity } from "./entities.ts";
import { statusOf } from "./failures.ts";
import { link } from "./relationships.ts";

/** Keys of a bulk request, in the order they are processed under one parent (types before their users). */
export const BULK_KEYS = [
  "environment",
  "resourceType",
  "metricType",
  "operationType",
  "feed",
  "metric",
  "resource",
  "dataEntity",
  "metadataPack",
  "relationship",
] as const;
export type BulkKey = (typeof BULK_KEYS)[number];

const BULK_CODES: Record<Exclude<BulkKey, "relationship">, EntityCode> = {
  environment: "e",
  resourceType: "rt",
  metricType: "mt",
  operationType: "ot",
  feed: "f",
  metric: "m",
  resource: "r",
  dataEntity: "d",
  metadataPack: "mp",
};

export const bulkRequestSchema = z.record(z.string(), z.partialRecord(z.enum(BULK_KEYS), z.array(z.unknown())));
export type BulkRequest = z.infer<typeof bulkRequestSchema>;

/** Per created item: entity type key → canonical path → HTTP status. */
export type BulkStatuses = Partial<Record<BulkKey, Record<string, number>>>;

/**
 * Creates everything in the request in one transaction and reports a status per item: 201
 * created, 400 invalid, 404 missing parent or other end, 409 already exists, 500 unexpected.
 * A failed item does not stop the others. Parents are processed shallowest first, so an entity
 * can be created under one created earlier in the same request.
 */
export async function bulkCreate(inv: Inventory, tenant: string, request: BulkRequest): Promise<BulkStatuses> {
  const tenantRoot = CanonicalPath.tenant(tenant);
  const parents = Object.entries(request).map(([key, byType]) => {
    try {
      return { key, byType, path: key === "" || key === "/" ? tenantRoot : resolvePath(key, { tenant, origin: tenantRoot }) };
    } catch {
      return { key, byType, path: undefined };
    }
  });
  parents.sort((a, b) => (a.path?.depth ?? 0) - (b.path?.depth ?? 0));
  return mutate(inv, tenant, async (tx, changes) => {
    const statuses: BulkStatuses = {};
    const put = (type: BulkKey, path: string, status: number) => {
      const m = (statuses[type] ??= {});
      if (!(path in m)) m[path] = status;
    };
    for (const { key, byType, path } of parents) {
      for (const type of BULK_KEYS) {
        const items = byType[type];
        if (!items) continue;
        if (!path) {
          put(type, key, 400);
          continue;
        }
        if (type === "relationship") await bulkLinks(tx, changes, path, items, put);
        else await bulkEntities(tx, changes, path, type, items, put);
      }
    }
    return statuses;
  });
}

type Put = (type: BulkKey, path: string, status: number) => void;

async function bulkEntities(
  tx: InventoryTx,
  changes: Changes,
  parent: CanonicalPath,
  key: Exclude<BulkKey, "relationship">,
  items: unknown[],
  put: Put,
) {
  const code = BULK_CODES[key];
  const done = new Set<string>();
  for (const raw of items) {
    const provisional = provisionalPath(parent, code, raw);
    // The same entity twice in one request is created once; its first status stands.
    if (done.has(provisional)) continue;
    done.add(provisional);
    try {
      const created = await changes.attempt(tx, () => createEntity(tx, changes, parent, parseBlueprint(code, raw)));
      put(key, created.path.toString(), 201);
    } catch (e) {
      put(key, provisional, statusOf(e));
    }
  }
}

async function bulkLinks(tx: InventoryTx, changes: Changes, parent: CanonicalPath, items: unknown[], put: Put) {
  for (const raw of items) {
    let rb: RelationshipBlueprint | undefined;
    let key = parent.toString();
    try {
      rb = parseRelationshipBlueprint(raw);
      let other = rb.otherEnd;
      try {
        other = resolvePath(rb.otherEnd, { tenant: changes.tenant, origin: parent }).toString();
      } catch {
        // Keep the text as written in the key; the link below reports the bad path.
      }
      key = CanonicalPath.of([{ type: "rl", id: `${parent}${arrow(rb)}${other}` }]).toString();
      const otherEnd = resolvePath(rb.otherEnd, { tenant: changes.tenant, origin: parent });
      const ends: [CanonicalPath, CanonicalPath][] =
        rb.direction === "outgoing"
          ? [[parent, otherEnd]]
          : rb.direction === "incoming"
            ? [[otherEnd, parent]]
            : [
                [parent, otherEnd],
                [otherEnd, parent],
              ];
      const props = rb.properties;
      await changes.attempt(tx, async () => {
        for (const [source, target] of ends) await link(tx, changes, { source, name: rb!.name, target, properties: props });
      });
      put("relationship", key, 201);
    } catch (e) {
      put("relationship", key, statusOf(e));
    }
  }
}

function arrow(rb: RelationshipBlueprint): string {
  if (rb.direction === "both") return `<-(${rb.name})->`;
  return rb.direction === "outgoing" ? `-(${rb.name})->` : `<-(${rb.name})-`;
}

/** Where an item would be created, for its status key even when it is invalid. */
function provisionalPath(parent: CanonicalPath, code: EntityCode, raw: unknown): string {
  const obj = raw !== null && typeof raw === "object" ? (raw as Record<string, unknown>) : {};
  const id = code === "d" ? (obj.role ?? obj.id) : code === "mp" ? "<metadata-pack>" : obj.id;
  if (typeof id !== "string" || id === "") return parent.toString();
  try {
    return parent.extend(code, id).toString();
  } catch {
    return `${parent}/${code};${id}`;
  }
}
