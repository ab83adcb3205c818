import { join } from "node:path";
import { createLogger, isLogLevel, type Logger } from "../src/log/logger.ts";
import type { OptionValues } from "../src/config/options.ts";
import { createRootApp } from "./http/root.ts";
import { createMetricsApp } from "./http/metrics/app.ts";

export interface Collector {
  /** Base URL of the HTTP server, e.g. http://127.0.0.1:8080 */
  url: string;
  httpPort: number;
  log: Logger;
  stop(): Promise<void>;
}

/** Starts the collector: HTTP first (503 until ready), then storage, then MQTT ingest. */
export async function startCollector(values: OptionValues): Promise<Collector> {
  const level = String(values["log-level"] ?? "info");
  const log = createLogger(isLogLevel(level) ? level : "info", "collector");
  const dataDir = String(values["data-dir"] ?? "./data");
  let ready = false;
  const readiness = { ready: () => ready };

  const app = createRootApp({ metrics: createMetricsApp({ version: VERSION }) }, readiness, log);
  const server = Bun.serve({
    port: Number(values["http-port"] ?? 8080),
    hostname: String(values["http-host"] ?? "0.0.0.0"),
    fetch: app.fetch,
    // Watch streams stay open; they send heartbeats, so only a generous idle timeout is needed.
    idleTimeout: 120,
    maxRequestBodySize: 256 * 1024 * 1024,
  });
  const host = server.hostname === "0.0.0.0" ? "127.0.0.1" : server.hostname;
  const url = `http://${host}:${server.port}`;
  log.info("HTTP listening", { url, dataDir: join(dataDir) });
  ready = true;

  return {
    url,
    httpPort: server.port ?? 0,
    log,
    async stop() {
      ready = false;
      await server.stop(true);
    },
  };
}

/** Clients switch APIs on this; it must read as a plain version >= 0.16.0. */
export const VERSION = "0.16.0";
export const OUTPOST_VERSION = "0.1.0";
