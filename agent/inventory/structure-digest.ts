import { createHash } from "node:crypto";
import { type InventoryStructure, structureToJson } from "../../src/inventory/structure.ts";

/** The wire JSON of a structure and a digest of it, to tell whether anything changed. */
export interface DigestedStructure {
  json: unknown;
  /**
   * SHA-1 of the JSON text. The inventory's own root hash would not do: a feed's hashes
   * cover its children's identities but not their content (names, properties).
   */
  digest: string;
}

export function digestStructure(s: InventoryStructure): DigestedStructure {
  const json = structureToJson(s);
  return { json, digest: createHash("sha1").update(JSON.stringify(json)).digest("hex") };
}
