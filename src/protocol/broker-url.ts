/** Where an MQTT broker is, from the URL both programs accept. */
export interface BrokerAddress {
  host: string;
  port: number;
  tls: boolean;
}

/** mqtt://host[:1883] or mqtts://host[:8883] (tcp:// and ssl:// / tls:// are accepted too). */
export function parseBrokerUrl(url: string): BrokerAddress {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Error(`"${url}" is not a broker URL (mqtt://host:port or mqtts://host:port)`);
  }
  const scheme = u.protocol.replace(/:$/, "");
  const tls = ["mqtts", "ssl", "tls"].includes(scheme);
  if (!tls && !["mqtt", "tcp"].includes(scheme)) throw new Error(`unsupported broker URL scheme "${scheme}" (use mqtt:// or mqtts://)`);
  return { host: u.hostname.replace(/^\[|\]$/g, ""), port: u.port ? Number(u.port) : tls ? 8883 : 1883, tls };
}

/** When `url` names no port: says which one the scheme gives it (for the log); else undefined. */
export function portNote(url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  if (u.port !== "") return undefined;
  const b = parseBrokerUrl(url);
  return `${url} names no port: using ${b.port}, the default of ${b.tls ? "MQTT over TLS" : "MQTT"}`;
}
