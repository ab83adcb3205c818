import { readFileSync } from "node:fs";
import { BlockList, isIP } from "node:net";
import { OptionError, type OptionValues } from "../src/config/options.ts";
import { readSecretOption } from "../src/config/secret-option.ts";
import type { BaseUrlPolicy } from "../src/http/base-url.ts";
import type { Logger } from "../src/log/logger.ts";
import { readableByOthers } from "./auth/auth-file.ts";
import { Credentials } from "./auth/credentials.ts";
import { AuthGate } from "./auth/gate.ts";
import { DEFAULT_THROTTLE, FailureThrottle, throttleFor } from "./auth/throttle.ts";
import { checkExposure, plainMqttHost } from "./exposure.ts";
import { loadTls, logCertificate, type TlsFiles, type TlsMaterial } from "./tls.ts";

/** What the collector's options say about who may get in (docs/security.md). */
export interface Security {
  gate?: AuthGate;
  tls?: TlsMaterial;
  tlsFiles?: TlsFiles;
  base: BaseUrlPolicy;
  brokerPassword?: string;
  brokerCa?: string;
}

const str = (v: unknown) => (v === undefined || String(v).trim() === "" ? undefined : String(v).trim());

/** --trusted-proxies: addresses and CIDR ranges, IPv4 or IPv6. */
export function parseTrustedProxies(entries: string[]): ((address: string) => boolean) | undefined {
  if (entries.length === 0) return undefined;
  const list = new BlockList();
  for (const e of entries) {
    const [addr, bits] = e.split("/");
    const family = isIP(addr ?? "");
    const prefix = bits === undefined ? undefined : Number(bits);
    if (family === 0 || (prefix !== undefined && (!Number.isInteger(prefix) || prefix < 0 || prefix > (family === 4 ? 32 : 128)))) {
      throw new OptionError(`--trusted-proxies: "${e}" is not an IP address or CIDR range`);
    }
    const type = family === 4 ? "ipv4" : "ipv6";
    if (prefix === undefined) list.addAddress(addr!, type);
    else list.addSubnet(addr!, prefix, type);
  }
  return (address) => list.check(address, isIP(address) === 6 ? "ipv6" : "ipv4");
}

function externalUrl(v: unknown): string | undefined {
  const s = str(v);
  if (s === undefined) return undefined;
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    throw new OptionError(`--external-url: "${s}" is not a URL (e.g. https://outpost.example.com)`);
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") throw new OptionError(`--external-url: "${s}" is not an http(s) URL`);
  if (u.pathname !== "/" || u.search || u.hash) throw new OptionError(`--external-url: "${s}" must have no path (the interfaces are served under /svc and /hawkular)`);
  return u.origin;
}

/** Reads the auth file and certificates and checks the listening addresses; throws OptionError (exit 2) on a mistake. */
export function readSecurity(values: OptionValues, log: Logger): Security {
  const authFile = str(values["auth-file"]);
  let gate: AuthGate | undefined;
  if (authFile) {
    const credentials = Credentials.load(authFile);
    const free = Number(values["auth-failures"] ?? DEFAULT_THROTTLE.perAddress);
    if (!Number.isInteger(free) || free < 0) throw new OptionError("--auth-failures must be 0 or more");
    gate = new AuthGate(credentials, log.child("auth"), free === 0 ? undefined : new FailureThrottle(throttleFor(free)));
    const { users, tokens } = credentials.counts;
    log.info("credentials required on HTTP and MQTT", { authFile, users, tokens });
    if (users + tokens === 0) log.warn("the auth file holds no credentials: nobody can log in (add some with `collector auth add`)", { authFile });
    if (readableByOthers(authFile)) log.warn("the auth file is readable by other users; it holds hashes only, but make it 0600 (chmod 600)", { authFile });
  }
  const cert = str(values["tls-cert"]);
  const key = str(values["tls-key"]);
  if ((cert === undefined) !== (key === undefined)) throw new OptionError("--tls-cert and --tls-key go together: give both or neither");
  const clientCa = str(values["tls-client-ca"]);
  if (clientCa && !cert) throw new OptionError("--tls-client-ca needs --tls-cert and --tls-key (it applies to the MQTT over TLS listener)");
  const tlsFiles = cert && key ? { cert, key, clientCa } : undefined;
  const tls = tlsFiles ? loadTls(tlsFiles) : undefined;
  if (tls) logCertificate(tls, log, "HTTPS and MQTT over TLS");

  const external = str(values.broker) !== undefined;
  const mqttHost = String(values["mqtt-host"] ?? "127.0.0.1");
  const mqttPort = Number(values["mqtt-port"] ?? 1883);
  const mqttsPort = tls ? Number(values["mqtts-port"] ?? 8883) : 0;
  checkExposure(
    [
      { what: tls ? "HTTPS" : "HTTP", host: String(values["http-host"] ?? "127.0.0.1"), option: "--http-host", tls: tls !== undefined },
      ...(!external && mqttPort > 0 ? [{ what: "MQTT", host: plainMqttHost(values, tls !== undefined), option: values["mqtt-plain-host"] === undefined ? "--mqtt-host" : "--mqtt-plain-host", tls: false }] : []),
      ...(!external && mqttsPort > 0 ? [{ what: "MQTT over TLS", host: mqttHost, option: "--mqtt-host", tls: true }] : []),
    ],
    gate !== undefined,
    values.insecure === true,
    log,
  );

  const brokerCaFile = str(values["broker-ca-file"]);
  let brokerCa: string | undefined;
  if (brokerCaFile) {
    try {
      brokerCa = readFileSync(brokerCaFile, "utf8");
    } catch (e) {
      throw new OptionError(`--broker-ca-file: cannot read ${brokerCaFile}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
  }
  return {
    gate,
    tls,
    tlsFiles,
    base: { externalUrl: externalUrl(values["external-url"]), trustedProxy: parseTrustedProxies((values["trusted-proxies"] as string[] | undefined) ?? []) },
    brokerPassword: readSecretOption(values, "broker-password"),
    brokerCa,
  };
}

/**
 * SIGHUP: re-reads the auth file and the certificates. A file that fails to read or parse
 * leaves what is in use unchanged (logged as an error), so a typo cannot lock everyone out.
 */
export function reloadSecurity(s: Security, log: Logger): { tls?: TlsMaterial } {
  if (s.gate) {
    try {
      s.gate.reload();
      log.info("auth file re-read", { authFile: s.gate.credentials.path, ...s.gate.credentials.counts });
    } catch (e) {
      log.error("auth file not re-read; the credentials in use stay", { err: (e as Error).message });
    }
  }
  if (!s.tlsFiles) return {};
  try {
    s.tls = loadTls(s.tlsFiles);
    logCertificate(s.tls, log, "certificates re-read");
    return { tls: s.tls };
  } catch (e) {
    log.error("certificates not re-read; the ones in use stay", { err: (e as Error).message });
    return {};
  }
}
