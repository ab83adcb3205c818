import { type InventoryStructure, structureToJson } from "../../src/inventory/structure-json.ts";

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
  // Bun's hasher rather than node:crypto, which costs the agent about 3 MB of memory to load.
  return { json, digest: new Bun.CryptoHasher("sha1").update(JSON.stringify(json)).digest("hex") };
}
