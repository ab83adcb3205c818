import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Debian's openssl; .ci/run installs it when missing. */
const OPENSSL = Bun.which("openssl") ?? "/usr/bin/openssl";

function openssl(args: string[], cwd: string): void {
  const p = Bun.spawnSync([OPENSSL, ...args], { cwd, stdout: "pipe", stderr: "pipe" });
  if (p.exitCode !== 0) throw new Error(`openssl ${args.join(" ")} failed: ${p.stderr.toString()}`);
}

export interface TestCa {
  dir: string;
  /** PEM file of the CA certificate. */
  caFile: string;
  /** Issues a certificate signed by this CA; returns the PEM files. */
  issue(name: string, o: { cn: string; server?: boolean; client?: boolean; days?: number; san?: string }): { certFile: string; keyFile: string };
}

/**
 * A private CA made with openssl in a fresh folder (EC P-256 keys, so it is quick), for tests
 * that need real certificates: servers for localhost and 127.0.0.1, and client certificates.
 */
export function createTestCa(name = "Outpost Test CA", dir = mkdtempSync(join(tmpdir(), "outpost-tls-"))): TestCa {
  const key = `${name.replace(/\W+/g, "-")}.key`;
  const caFile = join(dir, `${name.replace(/\W+/g, "-")}.crt`);
  openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", key, "-out", caFile, "-days", "90", "-subj", `/CN=${name}`], dir);
  let serial = 1;
  return {
    dir,
    caFile,
    issue(certName, o) {
      const keyFile = join(dir, `${certName}.key`);
      const certFile = join(dir, `${certName}.crt`);
      const csr = join(dir, `${certName}.csr`);
      const ext = join(dir, `${certName}.ext`);
      const usage = [o.server ? "serverAuth" : "", o.client ? "clientAuth" : ""].filter(Boolean).join(",");
      writeFileSync(ext, `${o.server ? `subjectAltName=${o.san ?? "DNS:localhost,IP:127.0.0.1"}\n` : ""}extendedKeyUsage=${usage}\n`);
      openssl(["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", keyFile, "-out", csr, "-subj", `/CN=${o.cn}`], dir);
      openssl(["x509", "-req", "-in", csr, "-CA", caFile, "-CAkey", key, "-set_serial", String(serial++ + Math.floor(Math.random() * 1e6)), "-out", certFile, "-days", String(o.days ?? 60), "-extfile", ext], dir);
      return { certFile, keyFile };
    },
  };
}
