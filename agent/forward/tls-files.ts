import { createPrivateKey, X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { OptionError, type OptionValues } from "../../src/config/options.ts";
import type { TlsClientFiles } from "./mqtt/connection.ts";

const opt = (v: unknown) => (v === undefined || String(v).trim() === "" ? undefined : String(v).trim());

/**
 * The agent's TLS files (--ca-file, --cert-file, --key-file) as a loader read at every
 * connection attempt, so renewed certificates are picked up without a restart. Checked once
 * at start: a missing file or a lone certificate is a mistake to report in one line.
 */
export function tlsFilesLoader(values: OptionValues, brokerIsTls: boolean): (() => TlsClientFiles) | undefined {
  const ca = opt(values["ca-file"]);
  const cert = opt(values["cert-file"]);
  const key = opt(values["key-file"]);
  if (!ca && !cert && !key) return undefined;
  if (!brokerIsTls) throw new OptionError("--ca-file, --cert-file and --key-file apply to a TLS broker: use an mqtts:// --broker URL");
  if ((cert === undefined) !== (key === undefined)) throw new OptionError("--cert-file and --key-file go together: give both or neither");
  const read = (path: string | undefined, option: string) => {
    if (path === undefined) return undefined;
    try {
      return readFileSync(path, "utf8");
    } catch (e) {
      throw new OptionError(`${option}: cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
  };
  const load = (): TlsClientFiles => ({ ca: read(ca, "--ca-file"), cert: read(cert, "--cert-file"), key: read(key, "--key-file") });
  checkPem(load(), { ca, cert, key });
  return load;
}

/** At start, files that are not what they should be are one line each, not a failed handshake later. */
function checkPem(files: TlsClientFiles, paths: { ca?: string; cert?: string; key?: string }): void {
  const cert = (text: string | undefined, option: string, path: string | undefined) => {
    if (text === undefined) return undefined;
    try {
      return new X509Certificate(text);
    } catch (e) {
      throw new OptionError(`${option}: ${path} is not a PEM certificate: ${(e as Error).message}`);
    }
  };
  cert(files.ca, "--ca-file", paths.ca);
  const x509 = cert(files.cert, "--cert-file", paths.cert);
  if (files.key === undefined) return;
  let key: ReturnType<typeof createPrivateKey>;
  try {
    key = createPrivateKey(files.key);
  } catch (e) {
    throw new OptionError(`--key-file: ${paths.key} is not a PEM private key (unencrypted): ${(e as Error).message}`);
  }
  if (x509 && !x509.checkPrivateKey(key)) throw new OptionError(`--key-file: ${paths.key} is not the key of the certificate in ${paths.cert}`);
}
