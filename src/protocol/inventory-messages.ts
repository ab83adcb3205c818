/**
 * Inventory messages (docs/protocol.md): the agent sends its whole inventory structure on
 * `inventory`; the collector answers on the agent's `ack` topic with the digest it applied.
 */
import type { Decoder, Encoder } from "cbor-x";
import { decodeCbor, fieldChecker, PROTOCOL_VERSION, ProtocolError, versionCheck } from "./envelope.ts";

export interface InventoryMessage {
  /** Names this version of the structure; the ack repeats it. */
  digest: string;
  /** The structure JSON, as `POST /svc/inventory/sync` takes it under `structure`. */
  structure: unknown;
}

/** Collector → agent: the structure with this digest is applied, or refused for good (`error`). */
export interface InventoryAck {
  digest: string;
  error?: string;
}

const isDigest = (v: unknown): v is string => typeof v === "string" && v.length > 0 && v.length <= 128;

export function encodeInventory(enc: Encoder, m: InventoryMessage): Uint8Array {
  return enc.encode({ v: PROTOCOL_VERSION, kind: "inventory", digest: m.digest, structure: m.structure });
}

/** Checks the envelope only; the structure is validated by the inventory's own parser. */
export function decodeInventory(dec: Decoder, payload: Uint8Array): InventoryMessage {
  const raw = decodeCbor(dec, payload, "inventory");
  versionCheck(raw, "inventory");
  const { map, problems, check } = fieldChecker(raw);
  check("kind", map.kind === "inventory", 'expected "inventory"');
  check("digest", isDigest(map.digest), "expected a string of 1 to 128 characters");
  check("structure", map.structure !== null && typeof map.structure === "object" && !Array.isArray(map.structure), "expected a map");
  if (problems.length) throw new ProtocolError(`invalid inventory: ${problems.join("; ")}`);
  return { digest: map.digest as string, structure: map.structure };
}

export function encodeInventoryAck(enc: Encoder, a: InventoryAck): Uint8Array {
  return enc.encode({ v: PROTOCOL_VERSION, kind: "inventory-ack", digest: a.digest, ...(a.error === undefined ? {} : { error: a.error }) });
}

export function decodeInventoryAck(dec: Decoder, payload: Uint8Array): InventoryAck {
  const raw = decodeCbor(dec, payload, "inventory ack");
  versionCheck(raw, "inventory ack");
  const { map, problems, check } = fieldChecker(raw);
  check("kind", map.kind === "inventory-ack", 'expected "inventory-ack"');
  check("digest", isDigest(map.digest), "expected a string of 1 to 128 characters");
  check("error", map.error === undefined || typeof map.error === "string", "expected a string");
  if (problems.length) throw new ProtocolError(`invalid inventory ack: ${problems.join("; ")}`);
  const digest = map.digest as string;
  return map.error === undefined ? { digest } : { digest, error: map.error as string };
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
