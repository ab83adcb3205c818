import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Collector, startCollector } from "../../collector/server.ts";
import type { OptionValues } from "../../src/config/options.ts";
import { databaseUrlFor, onPostgresBackend } from "./postgres-backend.ts";

export interface TestCollector extends Collector {
  dataDir: string;
  /** fetch relative to the collector, with JSON, the tenant header and (when given) the default Authorization set. */
  req(path: string, init?: RequestInit & { tenant?: string | null; json?: unknown; authorization?: string | null }): Promise<Response>;
  /** Stops and removes the data folder. */
  close(): Promise<void>;
}

/**
 * A real collector on an ephemeral port with a fresh SQLite folder (no embedded broker); in the
 * "postgres" test project, with alerts, inventory and forecasting in a database of that folder's
 * own (postgres-backend.ts). `authorization` is sent by `req` unless a request says otherwise (null: none).
 */
export async function startTestCollector(values: OptionValues = {}, dataDir?: string, authorization?: string): Promise<TestCollector> {
  const dir = dataDir ?? mkdtempSync(join(tmpdir(), "outpost-test-"));
  const backend = onPostgresBackend() && values["database-url"] === undefined ? { "database-url": await databaseUrlFor(dir) } : {};
  const c = await startCollector({
    "http-port": 0,
    "http-host": "127.0.0.1",
    "mqtt-port": 0,
    "data-dir": dir,
    "log-level": "warn",
    synchronous: "NORMAL",
    ...backend,
    ...values,
  });
  return {
    ...c,
    dataDir: dir,
    req(path, init = {}) {
      const headers = new Headers(init.headers);
      if (init.tenant !== null && !headers.has("Svc-Tenant") && !headers.has("Hawkular-Tenant")) {
        headers.set("Svc-Tenant", init.tenant ?? "t1");
      }
      const auth = init.authorization === undefined ? authorization : init.authorization;
      if (auth && !headers.has("Authorization")) headers.set("Authorization", auth);
      let body = init.body;
      if (init.json !== undefined) {
        body = JSON.stringify(init.json);
        if (!headers.has("Content-Type")) headers.set("Content-Type", "application/json");
      }
      return fetch(c.url + path, { ...init, headers, body });
    },
    async close() {
      await c.stop();
      if (!dataDir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The JSON body of a response, loosely typed for assertions. */
// biome-ignore lint/suspicious/noExplicitAny: test assertions walk arbitrary JSON
export async function body(res: Response): Promise<any> {
  return res.json();
}
