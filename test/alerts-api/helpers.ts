import { expect } from "vitest";
import { body, type TestCollector } from "../helpers/collector.ts";

export const ALERTS = "/svc/alerts";

export interface AlertsClient {
  get(path: string, tenant?: string): Promise<Response>;
  post(path: string, json?: unknown, tenant?: string): Promise<Response>;
  put(path: string, json?: unknown, tenant?: string): Promise<Response>;
  del(path: string, tenant?: string): Promise<Response>;
  /** Like the calls above, expecting 200, answering the JSON body (or undefined when empty). */
  // biome-ignore lint/suspicious/noExplicitAny: test assertions walk arbitrary JSON
  ok(method: "GET" | "POST" | "PUT" | "DELETE", path: string, json?: unknown, tenant?: string): Promise<any>;
}

/** Requests to the alerting interface of a test collector, tenant t1 unless told. */
export function alertsClient(col: TestCollector, defaultTenant = "t1", root = ALERTS): AlertsClient {
  const send = (method: string, path: string, json: unknown, tenant: string) =>
    col.req(root + path, { method, tenant, ...(json === undefined ? {} : { json }) });
  const client: AlertsClient = {
    get: (path, tenant = defaultTenant) => send("GET", path, undefined, tenant),
    post: (path, json, tenant = defaultTenant) => send("POST", path, json, tenant),
    put: (path, json, tenant = defaultTenant) => send("PUT", path, json, tenant),
    del: (path, tenant = defaultTenant) => send("DELETE", path, undefined, tenant),
    async ok(method, path, json, tenant = defaultTenant) {
      const res = await send(method, path, json, tenant);
      const text = await res.text();
      expect(res.status, `${method} ${path}: ${text}`).toBe(200);
      return text === "" ? undefined : JSON.parse(text);
    },
  };
  return client;
}

/** Asserts an error status with an errorMsg body (optionally matching a pattern). */
export async function expectError(res: Response, status: number, pattern?: RegExp): Promise<string> {
  const b = await body(res);
  expect(res.status, JSON.stringify(b)).toBe(status);
  expect(typeof b.errorMsg).toBe("string");
  if (pattern) expect(b.errorMsg).toMatch(pattern);
  return b.errorMsg;
}

/** Polls `fn` until `done` holds, failing after the deadline with the last value seen. */
export async function eventually<T>(fn: () => Promise<T>, done: (v: T) => boolean, what: string, deadlineMs = 10_000): Promise<T> {
  const until = Date.now() + deadlineMs;
  let last: T = await fn();
  while (!done(last)) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}; last value: ${JSON.stringify(last)?.slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 25));
    last = await fn();
  }
  return last;
}

/** A full trigger with one threshold condition `dataId > threshold`, enabled. */
export function thresholdTrigger(id: string, dataId: string, threshold = 10, trigger: Record<string, unknown> = {}) {
  return {
    trigger: { id, name: `trigger ${id}`, enabled: true, ...trigger },
    conditions: [{ type: "THRESHOLD", dataId, operator: "GT", threshold }],
  };
}

let clock = 1_700_000_000_000;
/** Data timestamps a few seconds apart, so the engine's minimum reporting interval never drops one. */
export function nextTimestamp(): number {
  clock += 5000;
  return clock;
}
