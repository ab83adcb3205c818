import { OptionError } from "../src/config/options.ts";
import type { Logger } from "../src/log/logger.ts";
import { isLoopbackHost } from "../src/net/loopback.ts";

export interface Listener {
  /** What listens, for messages: "HTTP", "MQTT", "MQTT over TLS". */
  what: string;
  host: string;
  /** The option that chose the address. */
  option: string;
  /** Whether the connection is encrypted (credentials do not cross the network in clear). */
  tls: boolean;
}

/**
 * Secure by default, as Mosquitto 2 is: without an auth file the collector serves loopback
 * only. Asking for another address without one is refused in one line (exit code 2) unless
 * --insecure, which is then logged as a warning at every start. With an auth file, a
 * non-loopback listener without TLS works but is warned about (passwords in clear).
 */
export function checkExposure(listeners: Listener[], auth: boolean, insecure: boolean, log: Logger): void {
  const exposed = listeners.filter((l) => !isLoopbackHost(l.host));
  if (!auth && exposed.length > 0) {
    const where = exposed.map((l) => `${l.what} on ${l.host} (${l.option})`).join(" and ");
    if (!insecure) {
      throw new OptionError(
        `refusing to serve ${where} without --auth-file: anyone who can reach it could read and write every tenant. Create credentials (docs/security.md) and pass --auth-file, bind 127.0.0.1, or pass --insecure`,
      );
    }
    log.warn(`--insecure: ${where} without credentials; anyone who can reach it reads and writes every tenant`);
  }
  for (const l of auth ? exposed.filter((x) => !x.tls) : []) {
    log.warn(`${l.what} on ${l.host} is not encrypted: passwords and tokens cross the network in clear (use --tls-cert and --tls-key)`);
  }
}
