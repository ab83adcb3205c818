/**
 * Inventory messages (docs/protocol.md): the agent sends its whole inventory structure on
 * `inventory`; the collector answers on the agent's `ack` topic with the digest it applied.
 */
import type { Decoder, Encoder } from "cbor-x";
import * as z from "zod";
import { decodeCbor, describeIssues, PROTOCOL_VERSION, ProtocolError, versionCheck } from "./messages.ts";

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

const inventorySchema = z.object({
  v: z.literal(PROTOCOL_VERSION),
  kind: z.literal("inventory"),
  digest: z.string().min(1).max(128),
  structure: z.record(z.string(), z.unknown()),
});

const inventoryAckSchema = z.object({
  v: z.literal(PROTOCOL_VERSION),
  kind: z.literal("inventory-ack"),
  digest: z.string().min(1).max(128),
  error: z.string().optional(),
});

export function encodeInventory(enc: Encoder, m: InventoryMessage): Uint8Array {
  return enc.encode({ v: PROTOCOL_VERSION, kind: "inventory", digest: m.digest, structure: m.structure });
}

/** Checks the envelope only; the structure is validated by the inventory's own parser. */
export function decodeInventory(dec: Decoder, payload: Uint8Array): InventoryMessage {
  const raw = decodeCbor(dec, payload, "inventory");
  versionCheck(raw, "inventory");
  const r = inventorySchema.safeParse(raw);
  if (!r.success) throw new ProtocolError(`invalid inventory: ${describeIssues(r.error)}`);
  return { digest: r.data.digest, structure: r.data.structure };
}

export function encodeInventoryAck(enc: Encoder, a: InventoryAck): Uint8Array {
  return enc.encode({ v: PROTOCOL_VERSION, kind: "inventory-ack", digest: a.digest, ...(a.error === undefined ? {} : { error: a.error }) });
}

export function decodeInventoryAck(dec: Decoder, payload: Uint8Array): InventoryAck {
  const raw = decodeCbor(dec, payload, "inventory ack");
  versionCheck(raw, "inventory ack");
  const r = inventoryAckSchema.safeParse(raw);
  if (!r.success) throw new ProtocolError(`invalid inventory ack: ${describeIssues(r.error)}`);
  return r.data.error === undefined ? { digest: r.data.digest } : { digest: r.data.digest, error: r.data.error };
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
