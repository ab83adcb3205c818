import { OptionError, type OptionValues } from "../src/config/options.ts";
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
 * Where the embedded broker's plain MQTT listens: --mqtt-plain-host when given, else --mqtt-host;
 * but with TLS on, a non-loopback --mqtt-host serves MQTT over TLS only and plain MQTT stays on
 * loopback (agents on the collector's own host), unless --mqtt-plain-host asks for more.
 */
export function plainMqttHost(values: OptionValues, tls: boolean): string {
  const given = values["mqtt-plain-host"] === undefined ? "" : String(values["mqtt-plain-host"]).trim();
  if (given !== "") return given;
  const host = String(values["mqtt-host"] ?? "127.0.0.1");
  return tls && !isLoopbackHost(host) ? "127.0.0.1" : host;
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
