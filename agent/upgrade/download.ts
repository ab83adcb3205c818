import { createHash } from "node:crypto";
import { closeSync, fsyncSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import type { ReleaseArch } from "../../src/release/signature.ts";
import type { UpgradeOrder } from "../../src/protocol/upgrade-messages.ts";

export interface DownloadAccess {
  /** The broker URL the agent uses: its host is the collector's when the order gives a path. */
  brokerUrl: string;
  /** --collector-url, when the collector's HTTP interface is elsewhere (a proxy). */
  collectorUrl?: string;
  username?: string;
  password?: string;
  /** --ca-file: the CA of the collector's certificate (HTTPS, as for mqtts://). */
  caFile?: string;
}

/** A download that trying again would not mend (a refusal, more bytes than ordered). */
export class DownloadRefused extends Error {}

/** Where the binary of `arch` is, from the order and how this agent reaches the collector. */
export function downloadUrl(order: UpgradeOrder, arch: ReleaseArch, a: DownloadAccess): string {
  const path = `${order.download.replace(/\/+$/, "")}/${arch}`;
  if (/^https?:\/\//.test(path)) return path;
  if (a.collectorUrl) return `${a.collectorUrl.replace(/\/+$/, "")}${path}`;
  const host = new URL(a.brokerUrl.replace(/^mqtts?:/, "http:")).hostname;
  const bracketed = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  return `${order.tls ? "https" : "http"}://${bracketed}:${order.httpPort ?? (order.tls ? 443 : 80)}${path}`;
}

/**
 * Downloads to `dest` (a new file, 0600, not executable) with the agent's own credential,
 * counting the size and SHA-256 as the bytes come; more bytes than expected stop it at once.
 */
export async function download(url: string, dest: string, expectedSize: number, a: DownloadAccess, signal?: AbortSignal): Promise<{ size: number; sha256: string }> {
  const headers: Record<string, string> = {};
  if (a.username !== undefined) headers.Authorization = `Basic ${Buffer.from(`${a.username}:${a.password ?? ""}`).toString("base64")}`;
  const tls = url.startsWith("https:") && a.caFile ? { tls: { ca: readFileSync(a.caFile, "utf8") } } : {};
  const res = await fetch(url, { headers, signal, ...tls }).catch((e: Error & { code?: string }) => {
    // A certificate not trusted stays so however often it is tried.
    if (e.code && /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ALTNAME/.test(e.code)) throw new DownloadRefused(`the collector's certificate is not trusted (${e.code}): give its CA with --ca-file`);
    throw e;
  });
  if (!res.ok || !res.body) {
    const text = await res.text().catch(() => "");
    let msg = text.slice(0, 200);
    try {
      msg = (JSON.parse(text) as { errorMsg?: string }).errorMsg ?? msg;
    } catch {}
    const e = `the download from ${url} was answered ${res.status}${msg ? `: ${msg}` : ""}`;
    throw res.status >= 400 && res.status < 500 && res.status !== 408 && res.status !== 429 ? new DownloadRefused(e) : new Error(e);
  }
  rmSync(dest, { force: true });
  const fd = openSync(dest, "wx", 0o600);
  const hash = createHash("sha256");
  let size = 0;
  try {
    for await (const chunk of res.body) {
      size += chunk.length;
      if (size > expectedSize) throw new DownloadRefused(`the download is larger than the ${expectedSize} bytes ordered`);
      writeSync(fd, chunk);
      hash.update(chunk);
    }
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return { size, sha256: hash.digest("hex") };
}
