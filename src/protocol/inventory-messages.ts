/**
 * Inventory messages (docs/protocol.md): the agent sends its whole inventory structure on
 * `inventory`; the collector answers on the agent's `ack` topic with the digest it applied.
 */
import type { Decoder, Encoder } from "cbor-x";
import { decodeCbor, fieldChecker, PROTOCOL_VERSION, ProtocolError, versionCheck } from "./envelope.ts";
import { INSTANCE_ID_PATTERN } from "./identity.ts";

export interface InventoryMessage {
  /** Names this version of the structure; the ack repeats it. */
  digest: string;
  /** The structure JSON, as `POST /svc/inventory/sync` takes it under `structure`. */
  structure: unknown;
  /** The sending agent's identity (docs/fleet.md). */
  instance?: string;
}

/** Collector → agent: the structure with this digest is applied, or refused for good (`error`). */
export interface InventoryAck {
  digest: string;
  error?: string;
  /** The identity whose structure this answers; another agent on the feed's topic ignores it. */
  instance?: string;
}

const isInstance = (v: unknown): v is string => typeof v === "string" && INSTANCE_ID_PATTERN.test(v);
const isDigest = (v: unknown): v is string => typeof v === "string" && v.length > 0 && v.length <= 128;

export function encodeInventory(enc: Encoder, m: InventoryMessage): Uint8Array {
  return enc.encode({ v: PROTOCOL_VERSION, kind: "inventory", digest: m.digest, structure: m.structure, ...(m.instance === undefined ? {} : { instance: m.instance }) });
}

/** Checks the envelope only; the structure is validated by the inventory's own parser. */
export function decodeInventory(dec: Decoder, payload: Uint8Array): InventoryMessage {
  const raw = decodeCbor(dec, payload, "inventory");
  versionCheck(raw, "inventory");
  const { map, problems, check } = fieldChecker(raw);
  check("kind", map.kind === "inventory", 'expected "inventory"');
  check("digest", isDigest(map.digest), "expected a string of 1 to 128 characters");
  check("structure", map.structure !== null && typeof map.structure === "object" && !Array.isArray(map.structure), "expected a map");
  check("instance", map.instance === undefined || isInstance(map.instance), "expected 32 hexadecimal digits");
  if (problems.length) throw new ProtocolError(`invalid inventory: ${problems.join("; ")}`);
  return { digest: map.digest as string, structure: map.structure, ...(map.instance === undefined ? {} : { instance: map.instance as string }) };
}

export function encodeInventoryAck(enc: Encoder, a: InventoryAck): Uint8Array {
  return enc.encode({ v: PROTOCOL_VERSION, kind: "inventory-ack", digest: a.digest, ...(a.error === undefined ? {} : { error: a.error }), ...(a.instance === undefined ? {} : { instance: a.instance }) });
}

export function decodeInventoryAck(dec: Decoder, payload: Uint8Array): InventoryAck {
  const raw = decodeCbor(dec, payload, "inventory ack");
  versionCheck(raw, "inventory ack");
  const { map, problems, check } = fieldChecker(raw);
  check("kind", map.kind === "inventory-ack", 'expected "inventory-ack"');
  check("digest", isDigest(map.digest), "expected a string of 1 to 128 characters");
  check("error", map.error === undefined || typeof map.error === "string", "expected a string");
  check("instance", map.instance === undefined || isInstance(map.instance), "expected 32 hexadecimal digits");
  if (problems.length) throw new ProtocolError(`invalid inventory ack: ${problems.join("; ")}`);
  const ack: InventoryAck = { digest: map.digest as string };
  if (map.error !== undefined) ack.error = map.error as string;
  if (map.instance !== undefined) ack.instance = map.instance as string;
  return ack;
}

/** The `kind` of a message, to route the several kinds that share a topic; undefined if unreadable. */
export function messageKind(dec: Decoder, payload: Uint8Array): string | undefined {
  try {
    const raw = dec.decode(payload) as { kind?: unknown } | null;
    return typeof raw?.kind === "string" ? raw.kind : undefined;
  } catch {
    return undefined;
  }
}
