/**
 * `upgrade` (collector → agent, retained): the release a rollout asks this feed's agent to run
 * (docs/fleet.md, "Upgrades"). An empty retained message clears it. The agent trusts nothing in
 * it: the binary it downloads must match the size and SHA-256 here, and the signature here must
 * be the pinned release key's over version, architecture, size and SHA-256.
 */
import type { Decoder, Encoder } from "cbor-x";
import { isReleaseArch, type ReleaseArch } from "../release/signature.ts";
import { decodeCbor, fieldChecker, isSafeInt, PROTOCOL_VERSION, ProtocolError, versionCheck } from "./envelope.ts";

export interface OrderedBinary {
  size: number;
  sha256: string;
  /** Base64 Ed25519 signature (src/release/signature.ts). */
  signature: string;
}

export interface UpgradeOrder {
  /** The rollout's id: an agent tries one rollout's version once. */
  rollout: string;
  version: string;
  /** A downgrade is refused without it. */
  force: boolean;
  /** How long the new version has to connect and have a batch acknowledged. */
  deadlineMs: number;
  /**
   * Where the binaries are: `<download>/<arch>`. A path (starting with /) is on the collector's
   * HTTP port (`httpPort`, `https` when `tls`) at the broker's host; a URL when the collector
   * knows its external address.
   */
  download: string;
  httpPort?: number;
  tls?: boolean;
  binaries: Partial<Record<ReleaseArch, OrderedBinary>>;
}

export function encodeUpgradeOrder(enc: Encoder, o: UpgradeOrder): Uint8Array {
  return enc.encode({ v: PROTOCOL_VERSION, kind: "upgrade", ...o });
}

const isHex64 = (s: unknown) => typeof s === "string" && /^[0-9a-f]{64}$/.test(s);

export function decodeUpgradeOrder(dec: Decoder, payload: Uint8Array): UpgradeOrder {
  const raw = decodeCbor(dec, payload, "upgrade");
  versionCheck(raw, "upgrade");
  const { map, problems, check } = fieldChecker(raw);
  check("kind", map.kind === "upgrade", 'expected "upgrade"');
  check("rollout", typeof map.rollout === "string" && map.rollout.length > 0, "expected a non-empty string");
  check("version", typeof map.version === "string" && map.version.length > 0, "expected a non-empty string");
  check("force", typeof map.force === "boolean", "expected a boolean");
  check("deadlineMs", isSafeInt(map.deadlineMs, 1000), "expected ms ≥ 1000");
  check("download", typeof map.download === "string" && (map.download.startsWith("/") || /^https?:\/\//.test(map.download)), "expected a path or an http(s) URL");
  check("httpPort", map.httpPort === undefined || (isSafeInt(map.httpPort, 1) && (map.httpPort as number) <= 65535), "expected a port");
  check("tls", map.tls === undefined || typeof map.tls === "boolean", "expected a boolean");
  const bins = map.binaries as Record<string, unknown> | undefined;
  const binaryOk = (b: unknown) => {
    const x = b as Record<string, unknown> | null;
    return x !== null && typeof x === "object" && isSafeInt(x.size, 1) && isHex64(x.sha256) && typeof x.signature === "string";
  };
  check("binaries", bins !== null && typeof bins === "object" && Object.entries(bins).every(([a, b]) => isReleaseArch(a) && binaryOk(b)), "expected {x64|arm64: {size, sha256, signature}}");
  if (problems.length) throw new ProtocolError(`invalid upgrade: ${problems.join("; ")}`);
  const binaries: UpgradeOrder["binaries"] = {};
  for (const [a, b] of Object.entries(bins!)) {
    const x = b as OrderedBinary;
    binaries[a as ReleaseArch] = { size: x.size, sha256: x.sha256, signature: x.signature };
  }
  return {
    rollout: map.rollout as string,
    version: map.version as string,
    force: map.force as boolean,
    deadlineMs: map.deadlineMs as number,
    download: map.download as string,
    ...(map.httpPort === undefined ? {} : { httpPort: map.httpPort as number }),
    ...(map.tls === undefined ? {} : { tls: map.tls as boolean }),
    binaries,
  };
}

/** The states of an upgrade an agent reports, after OpAMP's PackageStatus (docs/fleet.md). */
export const UPGRADE_STATES = ["downloading", "installing", "installed", "failed"] as const;
export type UpgradeState = (typeof UPGRADE_STATES)[number];

/** An agent's report of its latest upgrade, carried by its status message. */
export interface UpgradeReport {
  state: UpgradeState;
  /** The version being or last installed. */
  version: string;
  rollout?: string;
  /** Why it failed. */
  reason?: string;
  /** The agent put its previous binary back (and runs it). */
  rolledBack?: boolean;
  /** Agent clock, ms. */
  at: number;
}

export function upgradeReportProblem(u: unknown): string | undefined {
  const m = u as Record<string, unknown> | null;
  if (m === null || typeof m !== "object") return "expected a map";
  if (!(UPGRADE_STATES as readonly unknown[]).includes(m.state)) return `state: expected one of ${UPGRADE_STATES.join(", ")}`;
  if (typeof m.version !== "string" || m.version === "") return "version: expected a non-empty string";
  if (m.rollout !== undefined && typeof m.rollout !== "string") return "rollout: expected a string";
  if (m.reason !== undefined && typeof m.reason !== "string") return "reason: expected a string";
  if (m.rolledBack !== undefined && typeof m.rolledBack !== "boolean") return "rolledBack: expected a boolean";
  if (!isSafeInt(m.at, Number.MIN_SAFE_INTEGER)) return "at: expected an integer (ms)";
  return undefined;
}

export function copyUpgradeReport(u: UpgradeReport): UpgradeReport {
  return {
    state: u.state,
    version: u.version,
    ...(u.rollout === undefined ? {} : { rollout: u.rollout }),
    ...(u.reason === undefined ? {} : { reason: u.reason.slice(0, 500) }),
    ...(u.rolledBack === undefined ? {} : { rolledBack: u.rolledBack }),
    at: u.at,
  };
}
