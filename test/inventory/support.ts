import { createHash } from "node:crypto";
import type { TestCollector } from "../helpers/collector.ts";

/** Calls of the inventory interface for one tenant, relative to /svc/inventory. */
export interface InventoryClient {
  get(path: string): Promise<Response>;
  post(path: string, json: unknown): Promise<Response>;
  put(path: string, json: unknown): Promise<Response>;
  del(path: string): Promise<Response>;
}

export function inventoryClient(col: TestCollector, tenant: string, root = "/svc/inventory"): InventoryClient {
  return {
    get: (path) => col.req(root + path, { tenant }),
    post: (path, json) => col.req(root + path, { method: "POST", json, tenant }),
    put: (path, json) => col.req(root + path, { method: "PUT", json, tenant }),
    del: (path) => col.req(root + path, { method: "DELETE", tenant }),
  };
}

/** Fails with the response body when the status is not the expected one. */
export async function expectStatus(res: Response, status: number): Promise<Response> {
  if (res.status !== status) {
    throw new Error(`expected ${status}, got ${res.status}: ${await res.text()}`);
  }
  return res;
}

/**
 * SHA-1 rendered as upstream does, written here independently of the collector: each byte in
 * lower-case hex without zero padding.
 */
export function upstreamSha1(text: string): string {
  return [...createHash("sha1").update(text, "utf8").digest()].map((b) => b.toString(16)).join("");
}

// biome-ignore lint/suspicious/noExplicitAny: test assertions walk arbitrary JSON
export type AnyJson = any;

export function paths(list: AnyJson[]): string[] {
  return list.map((e) => e.path as string).sort();
}
