import type { Server } from "node:net";
import type { Logger } from "../../src/log/logger.ts";
import { hostPort, listenError } from "../../src/net/listen.ts";

function listenOnce(server: Server, host: string, port: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
}

/**
 * Listens on host:port and resolves the bound port. A taken port is the user's to fix, so it is
 * one clear line naming the option; with `fallback` (the port is the default, not chosen) a
 * free port is taken instead and the log says which.
 */
export async function listen(server: Server, host: string, port: number, option: string, fallback?: Logger): Promise<number> {
  try {
    await listenOnce(server, host, port);
  } catch (e) {
    const hint = option === "--mqtt-port" ? `${option} (or use that broker with --mqtt-port 0 --broker mqtt://HOST:${port})` : option;
    const err = listenError(e, "MQTT address", hostPort(host, port), hint);
    if (!(fallback && (e as NodeJS.ErrnoException).code === "EADDRINUSE")) throw err;
    await listenOnce(server, host, 0);
    const a = server.address();
    fallback.warn(`MQTT port ${port} is taken (another broker?); the embedded broker listens on port ${typeof a === "object" && a ? a.port : "?"} instead (set ${option} to choose)`);
  }
  const addr = server.address();
  return typeof addr === "object" && addr ? addr.port : port;
}
