import { createHash } from "node:crypto";
import type { CanonicalPath } from "./canonical-path.ts";
import { compareJava, javaToString, structuredJson } from "./java-strings.ts";
import type { EntityRecord, Hashes } from "./model.ts";
import { DATA_ROLES, type EntityCode } from "./segment-types.ts";

/**
 * Identity, content and sync hashes (research §3.7).
 *
 * - identity: SHA-1 of the identity hashes of the children that make up the entity (in a fixed
 *   order of slots, each slot sorted by id) followed by the entity's own identifying fields;
 * - content: SHA-1 of the entity's own content (type-specific fields, name, properties by key);
 * - sync: SHA-1 of identity hash + content hash.
 * Hex is rendered byte by byte without zero padding, as upstream does.
 */
export function sha1(text: string): string {
  const digest = createHash("sha1").update(text, "utf8").digest();
  let out = "";
  for (const b of digest) out += b.toString(16);
  return out;
}

/** What hashing reads from an entity; an EntityRecord is one. */
export type HashSubject = Pick<
  EntityRecord,
  "path" | "type" | "id" | "name" | "properties" | "typePath" | "collectionInterval" | "metricDataType" | "unit" | "value"
>;

/** One part of an identity: a data entity of a role, or all children of a type. */
export type IdentitySlot = { data: string } | { children: EntityCode };

/** The children that make up the identity of each type, in the order they are hashed. */
export function identitySlots(type: EntityCode): IdentitySlot[] {
  const roles = DATA_ROLES[type];
  switch (type) {
    case "f":
      return [{ children: "rt" }, { children: "mt" }, { children: "r" }, { children: "m" }];
    case "rt":
      return [{ data: roles![0] }, { data: roles![1] }, { children: "ot" }];
    case "ot":
      return [{ data: roles![0] }, { data: roles![1] }];
    case "r":
      return [{ data: roles![0] }, { data: roles![1] }, { children: "r" }, { children: "m" }];
    default:
      return [];
  }
}

function ownIdentity(e: HashSubject): string {
  switch (e.type) {
    case "d":
      return e.id + structuredJson(e.value);
    case "mt":
      return e.id + (e.metricDataType ?? "") + (e.unit ?? "");
    default:
      return e.id;
  }
}

function propertiesString(props: Record<string, unknown> | undefined): string {
  if (!props) return "";
  return Object.keys(props)
    .sort(compareJava)
    .map((k) => k + javaToString(props[k]))
    .join("");
}

export function contentString(e: HashSubject): string {
  let own = "";
  switch (e.type) {
    case "d":
      own = structuredJson(e.value);
      break;
    case "mt":
      own = (e.metricDataType ?? "") + (e.unit ?? "") + (e.collectionInterval ?? "");
      break;
    case "m":
      own = (e.typePath ? e.typePath.relativeTo(e.path) : "") + (e.collectionInterval ?? "");
      break;
    case "r":
      own = e.typePath ? e.typePath.relativeTo(e.path) : "";
      break;
  }
  return own + (e.name ?? "") + propertiesString(e.properties);
}

/** Identity hashes of the children of an entity, looked up per slot. */
export interface ChildIdentities {
  /** Identity hash of the data entity of that role, or undefined when there is none. */
  data(role: string): string | undefined;
  /** Identity hashes of the children of that type, sorted by child id. */
  children(type: EntityCode): string[];
}

export function computeHashes(e: HashSubject, kids: ChildIdentities): Hashes {
  let identity = "";
  for (const slot of identitySlots(e.type)) {
    if ("data" in slot) identity += kids.data(slot.data) ?? dummyDataHashes(slot.data).identityHash;
    else identity += kids.children(slot.children).join("");
  }
  identity += ownIdentity(e);
  const identityHash = sha1(identity);
  const contentHash = sha1(contentString(e));
  return { identityHash, contentHash, syncHash: sha1(identityHash + contentHash) };
}

/** Hashes of the stand-in for a missing data entity: its role with an undefined value. */
export function dummyDataHashes(role: string): Hashes {
  const identityHash = sha1(`${role}null`);
  const contentHash = sha1("null");
  return { identityHash, contentHash, syncHash: sha1(identityHash + contentHash) };
}

/** An entity with its contained children, as a structure or as loaded from the store. */
export interface HashNode {
  entity: HashSubject;
  children: HashNode[];
}

export interface HashTree {
  path: CanonicalPath;
  type: EntityCode;
  id: string;
  hashes: Hashes;
  /** Children that take part in the identity, including stand-ins for missing data entities. */
  children: HashTree[];
  /** True for a stand-in of a missing data entity. */
  virtual?: boolean;
}

/** Hashes a whole tree bottom-up. */
export function hashTree(node: HashNode): HashTree {
  const e = node.entity;
  const byType = new Map<EntityCode, HashNode[]>();
  for (const c of node.children) {
    const list = byType.get(c.entity.type) ?? [];
    list.push(c);
    byType.set(c.entity.type, list);
  }
  const children: HashTree[] = [];
  const dataTrees = new Map<string, HashTree>();
  const typeTrees = new Map<EntityCode, HashTree[]>();
  for (const slot of identitySlots(e.type)) {
    if ("data" in slot) {
      const d = byType.get("d")?.find((c) => c.entity.id === slot.data);
      const t = d ? hashTree(d) : virtualData(e.path, slot.data);
      dataTrees.set(slot.data, t);
      children.push(t);
    } else {
      const sorted = [...(byType.get(slot.children) ?? [])].sort((a, b) => compareJava(a.entity.id, b.entity.id));
      const trees = sorted.map(hashTree);
      typeTrees.set(slot.children, trees);
      children.push(...trees);
    }
  }
  const hashes = computeHashes(e, {
    data: (role) => dataTrees.get(role)?.hashes.identityHash,
    children: (type) => (typeTrees.get(type) ?? []).map((t) => t.hashes.identityHash),
  });
  return { path: e.path, type: e.type, id: e.id, hashes, children };
}

function virtualData(parent: CanonicalPath, role: string): HashTree {
  return { path: parent.extend("d", role), type: "d", id: role, hashes: dummyDataHashes(role), children: [], virtual: true };
}

export interface TreeHashJson {
  hash: string;
  children: Record<string, TreeHashJson>;
}

/** The JSON of `GET /entity/{path}/treeHash`: sync hashes keyed by `code;id` (research §3.4). */
export function treeHashJson(t: HashTree): TreeHashJson {
  const children: Record<string, TreeHashJson> = {};
  for (const c of t.children) children[`${c.type};${c.id}`] = treeHashJson(c);
  return { hash: t.hashes.syncHash, children };
}
