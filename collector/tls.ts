import { createPrivateKey, X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { OptionError } from "../src/config/options.ts";
import type { Logger } from "../src/log/logger.ts";

/** The collector's TLS files (--tls-cert, --tls-key, --tls-client-ca). */
export interface TlsFiles {
  cert: string;
  key: string;
  /** CA whose certificates MQTT clients must present on the TLS listener. */
  clientCa?: string;
}

/** The files' contents, checked: the certificate parses and the key is its key. */
export interface TlsMaterial {
  cert: string;
  key: string;
  clientCa?: string;
  subject: string;
  validTo: Date;
}

function read(path: string, option: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (e) {
    throw new OptionError(`${option}: cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

/** Reads and checks the files; one clear line (OptionError) when something is wrong. */
export function loadTls(files: TlsFiles): TlsMaterial {
  const cert = read(files.cert, "--tls-cert");
  const key = read(files.key, "--tls-key");
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(cert);
  } catch (e) {
    throw new OptionError(`--tls-cert: ${files.cert} is not a PEM certificate: ${(e as Error).message}`);
  }
  let privateKey: ReturnType<typeof createPrivateKey>;
  try {
    privateKey = createPrivateKey(key);
  } catch (e) {
    throw new OptionError(`--tls-key: ${files.key} is not a PEM private key (unencrypted): ${(e as Error).message}`);
  }
  if (!x509.checkPrivateKey(privateKey)) throw new OptionError(`--tls-key: ${files.key} is not the key of the certificate in ${files.cert}`);
  const clientCa = files.clientCa === undefined ? undefined : read(files.clientCa, "--tls-client-ca");
  if (clientCa !== undefined) {
    try {
      new X509Certificate(clientCa);
    } catch (e) {
      throw new OptionError(`--tls-client-ca: ${files.clientCa} is not a PEM certificate: ${(e as Error).message}`);
    }
  }
  return { cert, key, clientCa, subject: x509.subject.replace(/\n/g, ", "), validTo: new Date(x509.validTo) };
}

/** Logs what certificate is served, and warns when it expires within two weeks (or has). */
export function logCertificate(t: TlsMaterial, log: Logger, what: string): void {
  const days = (t.validTo.getTime() - Date.now()) / 86_400_000;
  const fields = { subject: t.subject, validTo: t.validTo.toISOString(), clientCertificates: t.clientCa ? "required" : undefined };
  if (days < 0) log.error(`${what}: the TLS certificate has expired; clients will refuse it`, fields);
  else if (days < 14) log.warn(`${what}: the TLS certificate expires in ${Math.floor(days)} days; renew it and send SIGHUP`, fields);
  else log.info(`${what}: TLS certificate`, fields);
}
