import type { Server } from "bun";
import { type BunWebSocketData, websocket } from "hono/bun";
import { SERVER_BODY_CAP } from "../src/http/body-limit.ts";
import { stopServer } from "../src/http/serve.ts";
import type { Logger } from "../src/log/logger.ts";
import { hostPort, listenError } from "../src/net/listen.ts";
import type { TlsMaterial } from "./tls.ts";

export interface HttpServerOptions {
  host: string;
  port: number;
  fetch: (req: Request, server: Server<BunWebSocketData>) => Response | Promise<Response>;
  tls?: TlsMaterial;
  /**
   * The port is the default, not chosen: when it is taken, listen on a free one and say so
   * (the quick start must work next to another service on 8080). A chosen port must be free.
   */
  fallbackToFreePort?: boolean;
  log: Logger;
}

export interface HttpServer {
  /** Base URL, e.g. https://127.0.0.1:8443 (loopback when bound to every address). */
  url: string;
  port: number;
  /** Serves new certificates: new connections get them, open ones (watch streams) finish on the old. */
  reloadTls(material: TlsMaterial): void;
  /** Stops taking connections, lets requests in progress finish for up to `graceMs`, then closes the rest. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * The collector's HTTP(S) server. Bun cannot swap the certificate of a running server, so a
 * reload starts a second server on the same port (SO_REUSEPORT, used only with TLS) with the
 * new certificate and lets the old one stop accepting, finishing what it serves.
 */
export function startHttpServer(o: HttpServerOptions): HttpServer {
  const serve = (port: number, tls?: TlsMaterial) => {
    try {
      return Bun.serve<BunWebSocketData>({
        port,
        hostname: o.host,
        fetch: o.fetch,
        // Upgrades requested by the services' websocket routes (inventory events).
        websocket,
        // Watch streams send heartbeats more often than this; it only reaps dead connections.
        idleTimeout: 120,
        // Bodies are held to --max-request-body while they are read (src/http/body-limit.ts).
        maxRequestBodySize: SERVER_BODY_CAP,
        ...(tls ? { tls: { cert: tls.cert, key: tls.key }, reusePort: true } : {}),
      });
    } catch (e) {
      // A taken port or an address this host lacks is the user's to fix: one clear line.
      throw listenError(e, "HTTP address", hostPort(o.host, port), "--http-port");
    }
  };
  const first = (port: number) => {
    // SO_REUSEPORT would let a second collector share a taken port silently: probe it first.
    if (o.tls && port !== 0) {
      try {
        Bun.listen({ hostname: o.host, port, socket: { data() {} } }).stop(true);
      } catch (e) {
        throw listenError(e, "HTTP address", hostPort(o.host, port), "--http-port");
      }
    }
    return serve(port, o.tls);
  };
  let current: ReturnType<typeof serve>;
  try {
    current = first(o.port);
  } catch (e) {
    if (!(o.fallbackToFreePort && /already in use/.test((e as Error).message))) throw e;
    current = first(0);
    o.log.warn(`HTTP port ${o.port} is taken; listening on port ${current.port} instead (set --http-port to choose)`);
  }
  const port = current.port ?? o.port;
  const retired: ReturnType<typeof serve>[] = [];
  const host = current.hostname === "0.0.0.0" || current.hostname === "::" ? "127.0.0.1" : current.hostname;
  const url = `${o.tls ? "https" : "http"}://${host?.includes(":") ? `[${host}]` : host}:${port}`;
  o.log.info("HTTP listening", { address: hostPort(current.hostname ?? o.host, port), url });
  return {
    url,
    port,
    reloadTls(material) {
      const next = serve(port, material);
      const old = current;
      current = next;
      retired.push(old);
      void old.stop(false);
    },
    async stop(graceMs = 0) {
      await Promise.all([current, ...retired].map((s) => stopServer(s, graceMs)));
    },
  };
}
