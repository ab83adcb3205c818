import { badRequest } from "../../src/http/errors.ts";
import type { EntityBlueprint } from "../../src/inventory/blueprints.ts";
import type { CanonicalPath } from "../../src/inventory/canonical-path.ts";
import type { EntityRecord } from "../../src/inventory/model.ts";
import { WELL_KNOWN } from "../../src/inventory/model.ts";
import { recordOf } from "../../src/inventory/records.ts";
import { isSyncable, SIMPLE_NAMES } from "../../src/inventory/segment-types.ts";
import { blueprintJson, type StructureNode, type SyncRequest } from "../../src/inventory/structure.ts";
import type { InventoryTx } from "../store/inventory/types.ts";
import type { Changes } from "./changes.ts";
import { type Inventory, mutate } from "./context.ts";
import { createEntity, deleteEntity, resolveAgainst } from "./entities.ts";
import { insertLink } from "./relationships.ts";
import { renderEntity } from "./render.ts";
import { entityNotFound } from "./failures.ts";

/** Creation order of children: types before the resources and metrics that use them. */
const TYPE_ORDER = ["f", "rt", "mt", "ot", "m", "r", "d"];

/**
 * Makes the inventory under `rootPath` match `request.structure` (research §3.6): the root is
 * created when missing, entities in the structure are created or updated, and entities under
 * the root that are not in the structure are deleted, limited to `syncedTypes` (an unmentioned
 * entity of another type is kept, and with `deepSearch` its own children are checked too).
 * Relationships named in blueprints are ignored, as upstream does. Used by `POST /sync` and by
 * the agent ingest.
 */
export async function syncStructure(inv: Inventory, tenant: string, rootPath: CanonicalPath, request: SyncRequest): Promise<void> {
  const root = request.structure.root;
  if (!rootPath.entityType || !isSyncable(rootPath.type)) {
    throw badRequest(`Entities of type ${SIMPLE_NAMES[rootPath.type]} are not synchronizable.`);
  }
  if (root.blueprint.type !== rootPath.type) {
    throw badRequest(
      `The structure describes a ${SIMPLE_NAMES[root.blueprint.type]} but ${rootPath} is a ${SIMPLE_NAMES[rootPath.type]}`,
    );
  }
  await mutate(inv, tenant, async (tx, changes) => {
    const parentPath = rootPath.parent()!;
    const existing = await tx.getEntity(tenant, rootPath);
    // The root keeps the id of the path it is synced at.
    const rootBp = { ...root.blueprint, id: rootPath.id };
    // One read of the whole subtree instead of one per entity; deletions only remove entities the
    // structure does not mention, so what the structure mentions stays valid in it.
    const before = new Snapshot(existing ? [existing, ...(await tx.descendants(tenant, rootPath))] : []);
    if (!existing) {
      if (!(await tx.getEntity(tenant, parentPath))) throw entityNotFound(parentPath);
      await createEntity(tx, changes, parentPath, withoutLinks(rootBp));
    } else {
      await removeUnmentioned(tx, changes, before, existing, root, request.configuration);
      await updateFromBlueprint(tx, changes, existing, rootBp, parentPath);
    }
    await syncChildren(tx, changes, before, rootPath, root.children);
  });
}

/** The stored subtree as it was when the sync began. */
class Snapshot {
  private readonly byPath = new Map<string, EntityRecord>();
  private readonly byParent = new Map<string, EntityRecord[]>();

  constructor(records: EntityRecord[]) {
    for (const r of records) {
      this.byPath.set(r.path.toString(), r);
      const parent = r.path.parent()?.toString() ?? "";
      const list = this.byParent.get(parent) ?? [];
      list.push(r);
      this.byParent.set(parent, list);
    }
  }

  get(path: CanonicalPath): EntityRecord | undefined {
    return this.byPath.get(path.toString());
  }

  children(path: CanonicalPath): EntityRecord[] {
    return this.byParent.get(path.toString()) ?? [];
  }
}

/** Deletes what exists below `entity` but is not among `node`'s children, per the sync configuration. */
async function removeUnmentioned(
  tx: InventoryTx,
  changes: Changes,
  before: Snapshot,
  entity: EntityRecord,
  node: StructureNode | undefined,
  config: SyncRequest["configuration"],
): Promise<void> {
  const wanted = new Map((node?.children ?? []).map((c) => [`${c.blueprint.type};${c.blueprint.id}`, c]));
  for (const child of before.children(entity.path)) {
    const match = wanted.get(`${child.type};${child.id}`);
    if (match) await removeUnmentioned(tx, changes, before, child, match, config);
    else if (config.syncedTypes.includes(child.type)) await deleteEntity(tx, changes, child.path);
    // An unmentioned entity of a type that is not synced stays; deep search looks inside it.
    else if (config.deepSearch) await removeUnmentioned(tx, changes, before, child, undefined, config);
  }
}

async function syncChildren(
  tx: InventoryTx,
  changes: Changes,
  before: Snapshot,
  parentPath: CanonicalPath,
  children: StructureNode[],
) {
  const ordered = [...children].sort((a, b) => TYPE_ORDER.indexOf(a.blueprint.type) - TYPE_ORDER.indexOf(b.blueprint.type));
  for (const child of ordered) {
    const path = parentPath.extend(child.blueprint.type, child.blueprint.id);
    const existing = before.get(path);
    if (existing) await updateFromBlueprint(tx, changes, existing, child.blueprint, parentPath);
    else await createEntity(tx, changes, parentPath, withoutLinks(child.blueprint));
    await syncChildren(tx, changes, before, path, child.children);
  }
}

function withoutLinks(bp: EntityBlueprint): EntityBlueprint {
  return { ...bp, outgoing: undefined, incoming: undefined };
}

/** Makes a stored entity equal to its blueprint; nothing is written when they already agree. */
async function updateFromBlueprint(
  tx: InventoryTx,
  changes: Changes,
  e: EntityRecord,
  bp: EntityBlueprint,
  parentPath: CanonicalPath,
): Promise<void> {
  const tenant = changes.tenant;
  const typePath =
    bp.typePath === undefined ? undefined : resolveAgainst(bp.typePath, tenant, parentPath, e.type === "r" ? "rt" : "mt");
  const next: EntityRecord = { ...recordOf(bp, e.path, typePath), hashes: e.hashes };
  if (next.type === "m" && next.collectionInterval === undefined && next.typePath) {
    next.collectionInterval = (await tx.getEntity(tenant, next.typePath))?.collectionInterval;
  }
  if (sameState(e, next)) return;

  const original = await renderEntity(tx, tenant, e);
  if (next.typePath && !(e.typePath && next.typePath.equals(e.typePath))) {
    if (!(await tx.getEntity(tenant, next.typePath))) throw entityNotFound(next.typePath, `The type ${next.typePath} does not exist`);
    const old = await tx.relationships(tenant, { ends: [e.path], direction: "in", names: [WELL_KNOWN.defines] });
    await tx.deleteRelationships(
      tenant,
      old.map((r) => r.id),
    );
    await insertLink(tx, changes, { source: next.typePath, name: WELL_KNOWN.defines, target: e.path });
  }
  await tx.updateEntity(tenant, next);
  changes.touch(e.path);
  changes.emit("updated", e.type, async () => ({ originalEntity: original, update: blueprintJson(bp) }));
}

function sameState(a: EntityRecord, b: EntityRecord): boolean {
  const pick = (e: EntityRecord) =>
    stableJson({
      name: e.name,
      properties: e.properties,
      collectionInterval: e.collectionInterval,
      metricDataType: e.metricDataType,
      unit: e.unit,
      value: e.value,
      typePath: e.typePath?.toString(),
    });
  return pick(a) === pick(b);
}

/** JSON with object keys sorted, so equal values give equal text. */
function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(",")}]`;
  if (v !== null && typeof v === "object") {
    const entries = Object.entries(v as Record<string, unknown>)
      .filter(([, x]) => x !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${stableJson(x)}`).join(",")}}`;
  }
  return JSON.stringify(v ?? null);
}
